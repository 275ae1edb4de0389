from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.mcp_exposure import McpExposure





T = TypeVar("T", bound="Exposure")



@_attrs_define
class Exposure:
    """ Where, besides its own triggers, the automation may be called from. Off unless named here.

        Attributes:
            mcp (McpExposure | None | Unset): Offer the automation as a tool of the space's MCP server (trigger type mcp).
     """

    mcp: McpExposure | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.mcp_exposure import McpExposure # noqa: PLC0415
        mcp: dict[str, Any] | None | Unset
        if isinstance(self.mcp, Unset):
            mcp = UNSET
        elif isinstance(self.mcp, McpExposure):
            mcp = self.mcp.to_dict()
        else:
            mcp = self.mcp


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if mcp is not UNSET:
            field_dict["mcp"] = mcp

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.mcp_exposure import McpExposure # noqa: PLC0415
        d = dict(src_dict)
        def _parse_mcp(data: object) -> McpExposure | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                mcp_type_0 = McpExposure.from_dict(data)



                return mcp_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(McpExposure | None | Unset, data)

        mcp = _parse_mcp(d.pop("mcp", UNSET))


        exposure = cls(
            mcp=mcp,
        )

        return exposure

