from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.for_each_block import ForEachBlock





T = TypeVar("T", bound="ForEachStep")



@_attrs_define
class ForEachStep:
    """ A loop: each iteration sees `item` and `index`; the output lists the iterations' outputs in order
    (an iteration's output is the output of its last step that ran).

        Attributes:
            for_each (ForEachBlock): Run a step list once per item of a list, at most `concurrency` iterations at a time.
            step_id (str):
            name (None | str | Unset):
            output_as (None | str | Unset):
     """

    for_each: ForEachBlock
    step_id: str
    name: None | str | Unset = UNSET
    output_as: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.for_each_block import ForEachBlock # noqa: PLC0415
        for_each = self.for_each.to_dict()

        step_id = self.step_id

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        output_as: None | str | Unset
        if isinstance(self.output_as, Unset):
            output_as = UNSET
        else:
            output_as = self.output_as


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "for_each": for_each,
            "step_id": step_id,
        })
        if name is not UNSET:
            field_dict["name"] = name
        if output_as is not UNSET:
            field_dict["output_as"] = output_as

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.for_each_block import ForEachBlock # noqa: PLC0415
        d = dict(src_dict)
        for_each = ForEachBlock.from_dict(d.pop("for_each"))




        step_id = d.pop("step_id")

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        def _parse_output_as(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        output_as = _parse_output_as(d.pop("output_as", UNSET))


        for_each_step = cls(
            for_each=for_each,
            step_id=step_id,
            name=name,
            output_as=output_as,
        )

        return for_each_step

