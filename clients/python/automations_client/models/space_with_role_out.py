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






T = TypeVar("T", bound="SpaceWithRoleOut")



@_attrs_define
class SpaceWithRoleOut:
    """ 
        Attributes:
            created_at (datetime.datetime):
            id (UUID):
            name (str):
            role (Role):
            updated_at (datetime.datetime):
     """

    created_at: datetime.datetime
    id: UUID
    name: str
    role: Role
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = str(self.id)

        name = self.name

        role = self.role.value

        updated_at = self.updated_at.isoformat()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "id": id,
            "name": name,
            "role": role,
            "updated_at": updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        id = UUID(d.pop("id"))




        name = d.pop("name")

        role = Role(d.pop("role"))




        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        space_with_role_out = cls(
            created_at=created_at,
            id=id,
            name=name,
            role=role,
            updated_at=updated_at,
        )


        space_with_role_out.additional_properties = d
        return space_with_role_out

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
