from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.database_create_access import DatabaseCreateAccess
from ..types import UNSET, Unset






T = TypeVar("T", bound="DatabaseCreate")



@_attrs_define
class DatabaseCreate:
    """ 
        Attributes:
            dsn_secret (str): Name of the secret holding the DSN.
            name (str): 1 to 64 characters of a-z, 0-9, _.
            tool_prefix (str): Capabilities become <prefix>.query and <prefix>.tables.
            access (DatabaseCreateAccess | Unset): read: the role must change nothing and queries run read-only. write: the
                admin accepts a role that writes; <prefix>.query is then a write capability. Default: DatabaseCreateAccess.READ.
     """

    dsn_secret: str
    name: str
    tool_prefix: str
    access: DatabaseCreateAccess | Unset = DatabaseCreateAccess.READ





    def to_dict(self) -> dict[str, Any]:
        dsn_secret = self.dsn_secret

        name = self.name

        tool_prefix = self.tool_prefix

        access: str | Unset = UNSET
        if not isinstance(self.access, Unset):
            access = self.access.value



        field_dict: dict[str, Any] = {}

        field_dict.update({
            "dsn_secret": dsn_secret,
            "name": name,
            "tool_prefix": tool_prefix,
        })
        if access is not UNSET:
            field_dict["access"] = access

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        dsn_secret = d.pop("dsn_secret")

        name = d.pop("name")

        tool_prefix = d.pop("tool_prefix")

        _access = d.pop("access", UNSET)
        access: DatabaseCreateAccess | Unset
        if isinstance(_access,  Unset):
            access = UNSET
        else:
            access = DatabaseCreateAccess(_access)




        database_create = cls(
            dsn_secret=dsn_secret,
            name=name,
            tool_prefix=tool_prefix,
            access=access,
        )

        return database_create

