from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import Literal, cast






T = TypeVar("T", bound="AuthNone")



@_attrs_define
class AuthNone:
    """ 
        Attributes:
            type_ (Literal['none']):
     """

    type_: Literal['none']





    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = cast(Literal['none'] , d.pop("type"))
        if type_ != 'none':
            raise ValueError(f"type must match const 'none', got '{type_}'")

        auth_none = cls(
            type_=type_,
        )

        return auth_none

