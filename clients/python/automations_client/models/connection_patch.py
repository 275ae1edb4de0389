from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.auth_bearer import AuthBearer
  from ..models.auth_header import AuthHeader
  from ..models.auth_none import AuthNone
  from ..models.auth_o_auth import AuthOAuth





T = TypeVar("T", bound="ConnectionPatch")



@_attrs_define
class ConnectionPatch:
    """ 
        Attributes:
            auth (AuthBearer | AuthHeader | AuthNone | AuthOAuth | None | Unset):
            name (None | str | Unset):
            server (None | str | Unset):
            tool_prefix (None | str | Unset):
            url (None | str | Unset):
     """

    auth: AuthBearer | AuthHeader | AuthNone | AuthOAuth | None | Unset = UNSET
    name: None | str | Unset = UNSET
    server: None | str | Unset = UNSET
    tool_prefix: None | str | Unset = UNSET
    url: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.auth_bearer import AuthBearer # noqa: PLC0415
        from ..models.auth_header import AuthHeader # noqa: PLC0415
        from ..models.auth_none import AuthNone # noqa: PLC0415
        from ..models.auth_o_auth import AuthOAuth # noqa: PLC0415
        auth: dict[str, Any] | None | Unset
        if isinstance(self.auth, Unset):
            auth = UNSET
        elif isinstance(self.auth, AuthNone):
            auth = self.auth.to_dict()
        elif isinstance(self.auth, AuthBearer):
            auth = self.auth.to_dict()
        elif isinstance(self.auth, AuthHeader):
            auth = self.auth.to_dict()
        elif isinstance(self.auth, AuthOAuth):
            auth = self.auth.to_dict()
        else:
            auth = self.auth

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        server: None | str | Unset
        if isinstance(self.server, Unset):
            server = UNSET
        else:
            server = self.server

        tool_prefix: None | str | Unset
        if isinstance(self.tool_prefix, Unset):
            tool_prefix = UNSET
        else:
            tool_prefix = self.tool_prefix

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if auth is not UNSET:
            field_dict["auth"] = auth
        if name is not UNSET:
            field_dict["name"] = name
        if server is not UNSET:
            field_dict["server"] = server
        if tool_prefix is not UNSET:
            field_dict["tool_prefix"] = tool_prefix
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
        def _parse_auth(data: object) -> AuthBearer | AuthHeader | AuthNone | AuthOAuth | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0_type_0 = AuthNone.from_dict(data)



                return auth_type_0_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0_type_1 = AuthBearer.from_dict(data)



                return auth_type_0_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0_type_2 = AuthHeader.from_dict(data)



                return auth_type_0_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0_type_3 = AuthOAuth.from_dict(data)



                return auth_type_0_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AuthBearer | AuthHeader | AuthNone | AuthOAuth | None | Unset, data)

        auth = _parse_auth(d.pop("auth", UNSET))


        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        def _parse_server(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        server = _parse_server(d.pop("server", UNSET))


        def _parse_tool_prefix(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_prefix = _parse_tool_prefix(d.pop("tool_prefix", UNSET))


        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))


        connection_patch = cls(
            auth=auth,
            name=name,
            server=server,
            tool_prefix=tool_prefix,
            url=url,
        )

        return connection_patch

