from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="McpExposure")



@_attrs_define
class McpExposure:
    """ The automation offered as a tool of the space's MCP server, to agents with a token scoped to it.

        Attributes:
            tool_name (str): The tool name, unique among the space's exposed automations (letters, digits, _, -).
            description (None | str | Unset): What the tool does, for the agent (default: the automation's description or
                goal).
     """

    tool_name: str
    description: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        tool_name = self.tool_name

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tool_name": tool_name,
        })
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        tool_name = d.pop("tool_name")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        mcp_exposure = cls(
            tool_name=tool_name,
            description=description,
        )

        return mcp_exposure

