from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="DatabaseOut")



@_attrs_define
class DatabaseOut:
    """ 
        Attributes:
            access (str): read or write (then <prefix>.query is a write capability).
            capabilities (list[str]):
            created_at (datetime.datetime):
            dsn_secret (str):
            id (UUID):
            name (str):
            tool_prefix (str):
     """

    access: str
    capabilities: list[str]
    created_at: datetime.datetime
    dsn_secret: str
    id: UUID
    name: str
    tool_prefix: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        access = self.access

        capabilities = self.capabilities



        created_at = self.created_at.isoformat()

        dsn_secret = self.dsn_secret

        id = str(self.id)

        name = self.name

        tool_prefix = self.tool_prefix


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "access": access,
            "capabilities": capabilities,
            "created_at": created_at,
            "dsn_secret": dsn_secret,
            "id": id,
            "name": name,
            "tool_prefix": tool_prefix,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        access = d.pop("access")

        capabilities = cast(list[str], d.pop("capabilities"))


        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        dsn_secret = d.pop("dsn_secret")

        id = UUID(d.pop("id"))




        name = d.pop("name")

        tool_prefix = d.pop("tool_prefix")

        database_out = cls(
            access=access,
            capabilities=capabilities,
            created_at=created_at,
            dsn_secret=dsn_secret,
            id=id,
            name=name,
            tool_prefix=tool_prefix,
        )


        database_out.additional_properties = d
        return database_out

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
