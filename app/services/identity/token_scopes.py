"""Scoped API tokens: a token may name what it is for, and then it can do nothing else.

A token without scopes (every token made before scopes existed, every sign-in) has the full access of
its user. A token with scopes is refused by every route but the ones its scopes open:

- `mcp` opens the space MCP servers and limits their tools to the automations it lists;
- `as_code` opens, in the one space it names, what `automations export` and `automations apply` call:
  reading the space, listing, validating, creating and updating automations, activating and pausing
  them, their action modes and (to read) their standing grants. Nothing else: no secrets, members,
  tokens, runs or approvals.

Scopes only narrow: a scoped token never does more than its user may (a member's `as_code` token cannot
change action modes, which needs an admin).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.errors import ErrorDetail, Forbidden, ValidationFailed
from app.persistence.repositories.mcp_exposure import McpExposureRepository
from app.persistence.repositories.tenancy import MembershipRepository
from app.persistence.types import AsyncSession

MCP_SCOPE = "mcp"
AS_CODE_SCOPE = "as_code"
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


class AsCodeScope(BaseModel):
    """The `as_code` scope: export and apply the automations of one space, from CI."""

    model_config = ConfigDict(extra="forbid")

    space: uuid.UUID = Field(description="The one space (one of yours) whose automations the token manages.")


def _absent(value: object) -> bool:
    return value is None


class TokenScopes(BaseModel):
    """What a scoped token is for; at least one scope."""

    model_config = ConfigDict(extra="forbid")

    # A scope a token does not have is left out of its answer, not shown as null.
    mcp: McpScope | None = Field(
        default=None, description="Call the listed automations as MCP tools.", exclude_if=_absent
    )
    as_code: AsCodeScope | None = Field(
        default=None,
        exclude_if=_absent,
        description="Export and apply the automations of one space (`automations export` / `apply`); "
        "no secrets, members, tokens, runs or approvals.",
    )

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


def require_as_code_space(scopes: Mapping[str, Any] | None, space_id: uuid.UUID) -> None:
    """Let a token act on a space through an as-code route: a token with full access, or one whose
    `as_code` scope names this space; 403 for any other scoped token."""
    if scopes is None:
        return
    scope = scopes.get(AS_CODE_SCOPE)
    if not isinstance(scope, Mapping):
        require_full_access(scopes)
        return
    if str(scope.get("space")) != str(space_id):
        raise Forbidden(
            f"This token's as_code scope is limited to space {scope.get('space')}; it cannot act on another.",
            code="token_scope_other_space",
        )


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
    if (
        scopes.as_code is not None
        and await MembershipRepository(session).get(scopes.as_code.space, user_id) is None
    ):
        raise ValidationFailed(
            f"Space {scopes.as_code.space} is not one of your spaces.",
            code="scope_space_not_found",
            details=[ErrorDetail(path="/scopes/as_code/space", message="no such space")],
        )
    return scopes.model_dump(mode="json", exclude_none=True)
