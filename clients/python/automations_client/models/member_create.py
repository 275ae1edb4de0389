from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.role import Role
from ..types import UNSET, Unset






T = TypeVar("T", bound="MemberCreate")



@_attrs_define
class MemberCreate:
    """ 
        Attributes:
            email (str):
            role (Role | Unset):
     """

    email: str
    role: Role | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        email = self.email

        role: str | Unset = UNSET
        if not isinstance(self.role, Unset):
            role = self.role.value



        field_dict: dict[str, Any] = {}

        field_dict.update({
            "email": email,
        })
        if role is not UNSET:
            field_dict["role"] = role

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        email = d.pop("email")

        _role = d.pop("role", UNSET)
        role: Role | Unset
        if isinstance(_role,  Unset):
            role = UNSET
        else:
            role = Role(_role)




        member_create = cls(
            email=email,
            role=role,
        )

        return member_create

