from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.connection_out_auth import ConnectionOutAuth





T = TypeVar("T", bound="ConnectionOut")



@_attrs_define
class ConnectionOut:
    """ 
        Attributes:
            created_at (datetime.datetime):
            harvest_error (None | str):
            harvest_notice (None | str):
            harvest_status (str):
            id (UUID):
            last_harvested_at (datetime.datetime | None):
            name (str):
            needs_authorization (bool):
            server (None | str):
            tool_count (int):
            tool_prefix (str):
            tools_truncated (bool):
            transport (str):
            updated_at (datetime.datetime):
            url (None | str):
            auth (ConnectionOutAuth | Unset):
     """

    created_at: datetime.datetime
    harvest_error: None | str
    harvest_notice: None | str
    harvest_status: str
    id: UUID
    last_harvested_at: datetime.datetime | None
    name: str
    needs_authorization: bool
    server: None | str
    tool_count: int
    tool_prefix: str
    tools_truncated: bool
    transport: str
    updated_at: datetime.datetime
    url: None | str
    auth: ConnectionOutAuth | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.connection_out_auth import ConnectionOutAuth # noqa: PLC0415
        created_at = self.created_at.isoformat()

        harvest_error: None | str
        harvest_error = self.harvest_error

        harvest_notice: None | str
        harvest_notice = self.harvest_notice

        harvest_status = self.harvest_status

        id = str(self.id)

        last_harvested_at: None | str
        if isinstance(self.last_harvested_at, datetime.datetime):
            last_harvested_at = self.last_harvested_at.isoformat()
        else:
            last_harvested_at = self.last_harvested_at

        name = self.name

        needs_authorization = self.needs_authorization

        server: None | str
        server = self.server

        tool_count = self.tool_count

        tool_prefix = self.tool_prefix

        tools_truncated = self.tools_truncated

        transport = self.transport

        updated_at = self.updated_at.isoformat()

        url: None | str
        url = self.url

        auth: dict[str, Any] | Unset = UNSET
        if not isinstance(self.auth, Unset):
            auth = self.auth.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "harvest_error": harvest_error,
            "harvest_notice": harvest_notice,
            "harvest_status": harvest_status,
            "id": id,
            "last_harvested_at": last_harvested_at,
            "name": name,
            "needs_authorization": needs_authorization,
            "server": server,
            "tool_count": tool_count,
            "tool_prefix": tool_prefix,
            "tools_truncated": tools_truncated,
            "transport": transport,
            "updated_at": updated_at,
            "url": url,
        })
        if auth is not UNSET:
            field_dict["auth"] = auth

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.connection_out_auth import ConnectionOutAuth # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        def _parse_harvest_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        harvest_error = _parse_harvest_error(d.pop("harvest_error"))


        def _parse_harvest_notice(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        harvest_notice = _parse_harvest_notice(d.pop("harvest_notice"))


        harvest_status = d.pop("harvest_status")

        id = UUID(d.pop("id"))




        def _parse_last_harvested_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_harvested_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_harvested_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_harvested_at = _parse_last_harvested_at(d.pop("last_harvested_at"))


        name = d.pop("name")

        needs_authorization = d.pop("needs_authorization")

        def _parse_server(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        server = _parse_server(d.pop("server"))


        tool_count = d.pop("tool_count")

        tool_prefix = d.pop("tool_prefix")

        tools_truncated = d.pop("tools_truncated")

        transport = d.pop("transport")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        def _parse_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        url = _parse_url(d.pop("url"))


        _auth = d.pop("auth", UNSET)
        auth: ConnectionOutAuth | Unset
        if isinstance(_auth,  Unset):
            auth = UNSET
        else:
            auth = ConnectionOutAuth.from_dict(_auth)




        connection_out = cls(
            created_at=created_at,
            harvest_error=harvest_error,
            harvest_notice=harvest_notice,
            harvest_status=harvest_status,
            id=id,
            last_harvested_at=last_harvested_at,
            name=name,
            needs_authorization=needs_authorization,
            server=server,
            tool_count=tool_count,
            tool_prefix=tool_prefix,
            tools_truncated=tools_truncated,
            transport=transport,
            updated_at=updated_at,
            url=url,
            auth=auth,
        )


        connection_out.additional_properties = d
        return connection_out

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
