from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="DatabaseCheckOut")



@_attrs_define
class DatabaseCheckOut:
    """ 
        Attributes:
            code (None | str): Why not: secret_missing, invalid_dsn, egress_denied, database_auth_failed,
                database_unavailable, database_role_unsafe or query_error.
            message (None | str): What went wrong, never quoting the DSN.
            reachable (bool): The DSN connected and answered a read-only query.
            tables (int | None): Tables outside the system schemas that the DSN's role sees.
     """

    code: None | str
    message: None | str
    reachable: bool
    tables: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        code: None | str
        code = self.code

        message: None | str
        message = self.message

        reachable = self.reachable

        tables: int | None
        tables = self.tables


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "code": code,
            "message": message,
            "reachable": reachable,
            "tables": tables,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_code(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        code = _parse_code(d.pop("code"))


        def _parse_message(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        message = _parse_message(d.pop("message"))


        reachable = d.pop("reachable")

        def _parse_tables(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        tables = _parse_tables(d.pop("tables"))


        database_check_out = cls(
            code=code,
            message=message,
            reachable=reachable,
            tables=tables,
        )


        database_check_out.additional_properties = d
        return database_check_out

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
