from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.database_patch_access_type_0 import DatabasePatchAccessType0
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="DatabasePatch")



@_attrs_define
class DatabasePatch:
    """ 
        Attributes:
            access (DatabasePatchAccessType0 | None | Unset): read or write; the role is checked again for it.
            dsn_secret (None | str | Unset): Another secret holding the DSN; checked again.
            name (None | str | Unset):
            tool_prefix (None | str | Unset): Renames the capabilities; steps naming the old ones fail.
     """

    access: DatabasePatchAccessType0 | None | Unset = UNSET
    dsn_secret: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    tool_prefix: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        access: None | str | Unset
        if isinstance(self.access, Unset):
            access = UNSET
        elif isinstance(self.access, DatabasePatchAccessType0):
            access = self.access.value
        else:
            access = self.access

        dsn_secret: None | str | Unset
        if isinstance(self.dsn_secret, Unset):
            dsn_secret = UNSET
        else:
            dsn_secret = self.dsn_secret

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        tool_prefix: None | str | Unset
        if isinstance(self.tool_prefix, Unset):
            tool_prefix = UNSET
        else:
            tool_prefix = self.tool_prefix


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if access is not UNSET:
            field_dict["access"] = access
        if dsn_secret is not UNSET:
            field_dict["dsn_secret"] = dsn_secret
        if name is not UNSET:
            field_dict["name"] = name
        if tool_prefix is not UNSET:
            field_dict["tool_prefix"] = tool_prefix

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_access(data: object) -> DatabasePatchAccessType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                access_type_0 = DatabasePatchAccessType0(data)



                return access_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DatabasePatchAccessType0 | None | Unset, data)

        access = _parse_access(d.pop("access", UNSET))


        def _parse_dsn_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        dsn_secret = _parse_dsn_secret(d.pop("dsn_secret", UNSET))


        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        def _parse_tool_prefix(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_prefix = _parse_tool_prefix(d.pop("tool_prefix", UNSET))


        database_patch = cls(
            access=access,
            dsn_secret=dsn_secret,
            name=name,
            tool_prefix=tool_prefix,
        )

        return database_patch

