from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import Literal, cast






T = TypeVar("T", bound="AuthBearer")



@_attrs_define
class AuthBearer:
    """ 
        Attributes:
            secret (str): Name of the space secret holding the token.
            type_ (Literal['bearer']):
     """

    secret: str
    type_: Literal['bearer']





    def to_dict(self) -> dict[str, Any]:
        secret = self.secret

        type_ = self.type_


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "secret": secret,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        secret = d.pop("secret")

        type_ = cast(Literal['bearer'] , d.pop("type"))
        if type_ != 'bearer':
            raise ValueError(f"type must match const 'bearer', got '{type_}'")

        auth_bearer = cls(
            secret=secret,
            type_=type_,
        )

        return auth_bearer

