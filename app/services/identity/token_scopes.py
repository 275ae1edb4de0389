"""Scoped API tokens: a token may name what it is for, and then it can do nothing else.

A token without scopes (every token made before scopes existed, every sign-in) has the full access of
its user. A token with scopes is refused by every route but the ones its scopes open; today one scope
exists, `mcp`, which opens the space MCP servers and limits their tools to the automations it lists.
Scopes only narrow: a scoped token never does more than its user may.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.errors import ErrorDetail, Forbidden, ValidationFailed
from app.persistence.repositories.mcp_exposure import McpExposureRepository
from app.persistence.types import AsyncSession

MCP_SCOPE = "mcp"
MAX_SCOPED_AUTOMATIONS = 100


class McpScope(BaseModel):
    """The `mcp` scope: which automations the token may list and call as MCP tools."""

    model_config = ConfigDict(extra="forbid")

    automations: Annotated[list[uuid.UUID], Field(min_length=1, max_length=MAX_SCOPED_AUTOMATIONS)] = Field(
        description="Ids of the automations this token may call as MCP tools (in any of your spaces)."
    )

    @field_validator("automations")
    @classmethod
    def _unique(cls, value: list[uuid.UUID]) -> list[uuid.UUID]:
        return list(dict.fromkeys(value))


class TokenScopes(BaseModel):
    """What a scoped token is for; at least one scope."""

    model_config = ConfigDict(extra="forbid")

    mcp: McpScope | None = Field(default=None, description="Call the listed automations as MCP tools.")

    def names(self) -> list[str]:
        return [name for name, value in self if value is not None]


def scope_names(scopes: Mapping[str, Any] | None) -> list[str]:
    """The names of a stored token's scopes (empty for a token with full access)."""
    return sorted(scopes) if scopes else []


def require_full_access(scopes: Mapping[str, Any] | None) -> None:
    """Refuse a scoped token on a route its scopes do not open."""
    if scopes is not None:
        names = ", ".join(scope_names(scopes)) or "nothing"
        raise Forbidden(
            f"This token is limited to: {names}; it cannot call this route. Use a token without scopes.",
            code="token_scope_insufficient",
        )


def mcp_automations(scopes: Mapping[str, Any] | None) -> frozenset[uuid.UUID]:
    """The automations a token's `mcp` scope lets it call; 403 when the token has no such scope."""
    scope = (scopes or {}).get(MCP_SCOPE)
    if not isinstance(scope, Mapping):
        raise Forbidden(
            "This token has no `mcp` scope: make a token with scopes "
            '{"mcp": {"automations": [...]}} to use the MCP server.',
            code="token_scope_missing",
        )
    return frozenset(uuid.UUID(str(value)) for value in scope.get("automations", []))


async def checked_scopes(
    session: AsyncSession, user_id: uuid.UUID, scopes: TokenScopes | None
) -> dict[str, Any] | None:
    """The scopes to store for a new token, after checking that each named automation is the user's to
    name (in a space they are a member of); 422 naming the first that is not."""
    if scopes is None:
        return None
    if not scopes.names():
        raise ValidationFailed(
            "A scoped token names at least one scope.",
            code="token_scopes_empty",
            details=[ErrorDetail(path="/scopes", message="name a scope, e.g. mcp")],
        )
    if scopes.mcp is not None:
        wanted = scopes.mcp.automations
        visible = await McpExposureRepository(session).visible_to(user_id, wanted)
        for index, automation_id in enumerate(wanted):
            if automation_id not in visible:
                raise ValidationFailed(
                    f"Automation {automation_id} is not in any of your spaces.",
                    code="scope_automation_not_found",
                    details=[
                        ErrorDetail(path=f"/scopes/mcp/automations/{index}", message="no such automation")
                    ],
                )
    return scopes.model_dump(mode="json", exclude_none=True)
