from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID






T = TypeVar("T", bound="McpScope")



@_attrs_define
class McpScope:
    """ The `mcp` scope: which automations the token may list and call as MCP tools.

        Attributes:
            automations (list[UUID]): Ids of the automations this token may call as MCP tools (in any of your spaces).
     """

    automations: list[UUID]





    def to_dict(self) -> dict[str, Any]:
        automations = []
        for automations_item_data in self.automations:
            automations_item = str(automations_item_data)
            automations.append(automations_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "automations": automations,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        automations = []
        _automations = d.pop("automations")
        for automations_item_data in (_automations):
            automations_item = UUID(automations_item_data)



            automations.append(automations_item)


        mcp_scope = cls(
            automations=automations,
        )

        return mcp_scope

