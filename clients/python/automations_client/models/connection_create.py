from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.connection_create_transport import ConnectionCreateTransport
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.auth_bearer import AuthBearer
  from ..models.auth_header import AuthHeader
  from ..models.auth_none import AuthNone
  from ..models.auth_o_auth import AuthOAuth





T = TypeVar("T", bound="ConnectionCreate")



@_attrs_define
class ConnectionCreate:
    """ 
        Attributes:
            name (str):
            tool_prefix (str): First segment of the tools' ids: a lowercase letter, then up to 39 of a-z, 0-9, _.
            auth (AuthBearer | AuthHeader | AuthNone | AuthOAuth | Unset):
            server (None | str | Unset): A stdio server the operator declared (transport stdio).
            transport (ConnectionCreateTransport | Unset):  Default: ConnectionCreateTransport.HTTP.
            url (None | str | Unset): Streamable HTTP endpoint.
     """

    name: str
    tool_prefix: str
    auth: AuthBearer | AuthHeader | AuthNone | AuthOAuth | Unset = UNSET
    server: None | str | Unset = UNSET
    transport: ConnectionCreateTransport | Unset = ConnectionCreateTransport.HTTP
    url: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.auth_bearer import AuthBearer # noqa: PLC0415
        from ..models.auth_header import AuthHeader # noqa: PLC0415
        from ..models.auth_none import AuthNone # noqa: PLC0415
        from ..models.auth_o_auth import AuthOAuth # noqa: PLC0415
        name = self.name

        tool_prefix = self.tool_prefix

        auth: dict[str, Any] | Unset
        if isinstance(self.auth, Unset):
            auth = UNSET
        elif isinstance(self.auth, AuthNone):
            auth = self.auth.to_dict()
        elif isinstance(self.auth, AuthBearer):
            auth = self.auth.to_dict()
        elif isinstance(self.auth, AuthHeader):
            auth = self.auth.to_dict()
        else:
            auth = self.auth.to_dict()


        server: None | str | Unset
        if isinstance(self.server, Unset):
            server = UNSET
        else:
            server = self.server

        transport: str | Unset = UNSET
        if not isinstance(self.transport, Unset):
            transport = self.transport.value


        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "tool_prefix": tool_prefix,
        })
        if auth is not UNSET:
            field_dict["auth"] = auth
        if server is not UNSET:
            field_dict["server"] = server
        if transport is not UNSET:
            field_dict["transport"] = transport
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.auth_bearer import AuthBearer # noqa: PLC0415
        from ..models.auth_header import AuthHeader # noqa: PLC0415
        from ..models.auth_none import AuthNone # noqa: PLC0415
        from ..models.auth_o_auth import AuthOAuth # noqa: PLC0415
        d = dict(src_dict)
        name = d.pop("name")

        tool_prefix = d.pop("tool_prefix")

        def _parse_auth(data: object) -> AuthBearer | AuthHeader | AuthNone | AuthOAuth | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0 = AuthNone.from_dict(data)



                return auth_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_1 = AuthBearer.from_dict(data)



                return auth_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_2 = AuthHeader.from_dict(data)



                return auth_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            auth_type_3 = AuthOAuth.from_dict(data)



            return auth_type_3

        auth = _parse_auth(d.pop("auth", UNSET))


        def _parse_server(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        server = _parse_server(d.pop("server", UNSET))


        _transport = d.pop("transport", UNSET)
        transport: ConnectionCreateTransport | Unset
        if isinstance(_transport,  Unset):
            transport = UNSET
        else:
            transport = ConnectionCreateTransport(_transport)




        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))


        connection_create = cls(
            name=name,
            tool_prefix=tool_prefix,
            auth=auth,
            server=server,
            transport=transport,
            url=url,
        )

        return connection_create

