from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import Literal, cast






T = TypeVar("T", bound="AuthHeader")



@_attrs_define
class AuthHeader:
    """ 
        Attributes:
            header (str): The header that carries the secret, e.g. X-Api-Key.
            secret (str): Name of the space secret holding the value.
            type_ (Literal['header']):
     """

    header: str
    secret: str
    type_: Literal['header']





    def to_dict(self) -> dict[str, Any]:
        header = self.header

        secret = self.secret

        type_ = self.type_


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "header": header,
            "secret": secret,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        header = d.pop("header")

        secret = d.pop("secret")

        type_ = cast(Literal['header'] , d.pop("type"))
        if type_ != 'header':
            raise ValueError(f"type must match const 'header', got '{type_}'")

        auth_header = cls(
            header=header,
            secret=secret,
            type_=type_,
        )

        return auth_header

