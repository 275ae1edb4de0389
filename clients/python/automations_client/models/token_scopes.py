from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.as_code_scope import AsCodeScope
  from ..models.mcp_scope import McpScope





T = TypeVar("T", bound="TokenScopes")



@_attrs_define
class TokenScopes:
    """ What a scoped token is for; at least one scope.

        Attributes:
            as_code (AsCodeScope | None | Unset): Export and apply the automations of one space (`automations export` /
                `apply`); no secrets, members, tokens, runs or approvals.
            mcp (McpScope | None | Unset): Call the listed automations as MCP tools.
     """

    as_code: AsCodeScope | None | Unset = UNSET
    mcp: McpScope | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.as_code_scope import AsCodeScope # noqa: PLC0415
        from ..models.mcp_scope import McpScope # noqa: PLC0415
        as_code: dict[str, Any] | None | Unset
        if isinstance(self.as_code, Unset):
            as_code = UNSET
        elif isinstance(self.as_code, AsCodeScope):
            as_code = self.as_code.to_dict()
        else:
            as_code = self.as_code

        mcp: dict[str, Any] | None | Unset
        if isinstance(self.mcp, Unset):
            mcp = UNSET
        elif isinstance(self.mcp, McpScope):
            mcp = self.mcp.to_dict()
        else:
            mcp = self.mcp


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if as_code is not UNSET:
            field_dict["as_code"] = as_code
        if mcp is not UNSET:
            field_dict["mcp"] = mcp

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.as_code_scope import AsCodeScope # noqa: PLC0415
        from ..models.mcp_scope import McpScope # noqa: PLC0415
        d = dict(src_dict)
        def _parse_as_code(data: object) -> AsCodeScope | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                as_code_type_0 = AsCodeScope.from_dict(data)



                return as_code_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AsCodeScope | None | Unset, data)

        as_code = _parse_as_code(d.pop("as_code", UNSET))


        def _parse_mcp(data: object) -> McpScope | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                mcp_type_0 = McpScope.from_dict(data)



                return mcp_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(McpScope | None | Unset, data)

        mcp = _parse_mcp(d.pop("mcp", UNSET))


        token_scopes = cls(
            as_code=as_code,
            mcp=mcp,
        )

        return token_scopes

