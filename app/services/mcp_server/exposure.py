"""Which automations are exposed as MCP tools, under which names (unique per space)."""

from __future__ import annotations

import uuid

from app.definitions.automation import AutomationDefinition
from app.errors import Conflict, ErrorDetail
from app.persistence.repositories.mcp_exposure import McpExposureRepository
from app.persistence.types import AsyncSession


def tool_name_of(definition: AutomationDefinition) -> str | None:
    """The MCP tool name the definition asks for, None when it is not exposed."""
    if definition.expose is None or definition.expose.mcp is None:
        return None
    return definition.expose.mcp.tool_name


async def claimed_tool_name(
    session: AsyncSession,
    space_id: uuid.UUID,
    definition: AutomationDefinition,
    automation_id: uuid.UUID | None,
) -> str | None:
    """The tool name to store for the automation being saved; 409 when another automation of the
    space is already exposed under it."""
    name = tool_name_of(definition)
    if name is None:
        return None
    holder = await McpExposureRepository(session).tool_name_holder(space_id, name, automation_id)
    if holder is not None:
        raise Conflict(
            f"The MCP tool name {name!r} is taken by the automation {holder.name!r} in this space; "
            "choose another expose.mcp.tool_name.",
            code="mcp_tool_name_taken",
            details=[ErrorDetail(path="/definition/expose/mcp/tool_name", message=f"taken by {holder.id}")],
        )
    return name
