from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PasswordChange")



@_attrs_define
class PasswordChange:
    """ 
        Attributes:
            password (str):
            current_password (None | str | Unset): Required once a password is set.
     """

    password: str
    current_password: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        password = self.password

        current_password: None | str | Unset
        if isinstance(self.current_password, Unset):
            current_password = UNSET
        else:
            current_password = self.current_password


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "password": password,
        })
        if current_password is not UNSET:
            field_dict["current_password"] = current_password

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        password = d.pop("password")

        def _parse_current_password(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        current_password = _parse_current_password(d.pop("current_password", UNSET))


        password_change = cls(
            password=password,
            current_password=current_password,
        )

        return password_change

