from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.role import Role
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="MemberOut")



@_attrs_define
class MemberOut:
    """ 
        Attributes:
            created_at (datetime.datetime):
            email (str):
            role (Role):
            space_id (UUID):
            user_id (UUID):
     """

    created_at: datetime.datetime
    email: str
    role: Role
    space_id: UUID
    user_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        email = self.email

        role = self.role.value

        space_id = str(self.space_id)

        user_id = str(self.user_id)


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "email": email,
            "role": role,
            "space_id": space_id,
            "user_id": user_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        email = d.pop("email")

        role = Role(d.pop("role"))




        space_id = UUID(d.pop("space_id"))




        user_id = UUID(d.pop("user_id"))




        member_out = cls(
            created_at=created_at,
            email=email,
            role=role,
            space_id=space_id,
            user_id=user_id,
        )


        member_out.additional_properties = d
        return member_out

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
