from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.if_block import IfBlock





T = TypeVar("T", bound="IfStep")



@_attrs_define
class IfStep:
    """ A branch: its condition picks `then` or `else`; the step's record says which ran.

        Attributes:
            if_ (IfBlock): Run one of two step lists, chosen by a filter over the run context.
            step_id (str):
            name (None | str | Unset):
     """

    if_: IfBlock
    step_id: str
    name: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.if_block import IfBlock # noqa: PLC0415
        if_ = self.if_.to_dict()

        step_id = self.step_id

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "if": if_,
            "step_id": step_id,
        })
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.if_block import IfBlock # noqa: PLC0415
        d = dict(src_dict)
        if_ = IfBlock.from_dict(d.pop("if"))




        step_id = d.pop("step_id")

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        if_step = cls(
            if_=if_,
            step_id=step_id,
            name=name,
        )

        return if_step

