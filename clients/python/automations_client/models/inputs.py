from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.inputs_schema import InputsSchema





T = TypeVar("T", bound="Inputs")



@_attrs_define
class Inputs:
    """ The automation's inputs, described by a JSON Schema object.

        Attributes:
            schema (InputsSchema | Unset): JSON Schema (draft 2020-12) the resolved inputs of every run must satisfy.
     """

    schema: InputsSchema | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.inputs_schema import InputsSchema # noqa: PLC0415
        schema: dict[str, Any] | Unset = UNSET
        if not isinstance(self.schema, Unset):
            schema = self.schema.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if schema is not UNSET:
            field_dict["schema"] = schema

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.inputs_schema import InputsSchema # noqa: PLC0415
        d = dict(src_dict)
        _schema = d.pop("schema", UNSET)
        schema: InputsSchema | Unset
        if isinstance(_schema,  Unset):
            schema = UNSET
        else:
            schema = InputsSchema.from_dict(_schema)




        inputs = cls(
            schema=schema,
        )

        return inputs

