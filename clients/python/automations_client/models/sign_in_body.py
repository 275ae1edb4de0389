from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="SignInBody")



@_attrs_define
class SignInBody:
    """ 
        Attributes:
            email (str):
            password (str):
     """

    email: str
    password: str





    def to_dict(self) -> dict[str, Any]:
        email = self.email

        password = self.password


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "email": email,
            "password": password,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        email = d.pop("email")

        password = d.pop("password")

        sign_in_body = cls(
            email=email,
            password=password,
        )

        return sign_in_body

