"""The tools of a space's MCP server: who may see which, and a call as a fire of the automation.

A caller is a member of the space holding a token with the `mcp` scope; it sees the space's active,
exposed automations its scope lists, and calls one as a fire with trigger type `mcp` that runs as the
token's user. The fire takes the normal path (the dispatcher that run now uses): inputs are checked
against the automation's inputs schema before anything is written, a paused automation is refused,
and the concurrency policy, budgets and daily caps drop a fire as they drop any other.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Protocol

from app.definitions.run_states import RunStatus
from app.errors import AppError, NotFound
from app.persistence.models import Automation, Run
from app.persistence.repositories.mcp_exposure import McpExposureRepository
from app.persistence.types import AsyncSession
from app.services.identity.access import Permissions, SpaceAccess
from app.services.identity.auth import auth_service, member
from app.services.identity.token_scopes import mcp_automations
from app.services.runs.admission import refusal
from app.services.runs.dispatch import dispatcher
from app.services.runs.fire_request import FireRequest, FireResult
from app.services.runs.follow import is_finished
from app.services.runs.limits import DispatchLimits


class Limiter(Protocol):
    async def allow(self, key: str, *, limit: int, window_seconds: float) -> Any: ...


class ToolRateLimited(AppError):
    status_code = 429
    code = "rate_limited"
    message = "Too many calls of this tool with this token; slow down."


@dataclass(frozen=True)
class RateLimit:
    """Calls per token and tool per window (AUTOMATIONS_MCP_RATE_LIMIT, _WINDOW_SECONDS)."""

    limit: int
    window_seconds: float


@dataclass(frozen=True)
class McpPrincipal:
    """A member of the space calling its MCP server with a token scoped to these automations."""

    access: SpaceAccess
    automation_ids: frozenset[uuid.UUID]


@dataclass(frozen=True)
class ExposedTool:
    """One tool as the server lists it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    automation_id: uuid.UUID


@dataclass(frozen=True)
class ToolOutcome:
    """What a tool call answers: whether it is an error, a line for the agent, and structured content."""

    is_error: bool
    text: str
    structured: dict[str, Any]


def _expose(automation: Automation) -> dict[str, Any]:
    expose = automation.definition.get("expose") or {}
    mcp = expose.get("mcp") if isinstance(expose, dict) else None
    return mcp if isinstance(mcp, dict) else {}


def tool_of(automation: Automation) -> ExposedTool:
    """The tool an exposed automation is listed as: its inputs schema is the tool's input schema."""
    definition = automation.definition
    description = (
        _expose(automation).get("description")
        or definition.get("description")
        or definition.get("goal")
        or automation.name
    )
    schema = (definition.get("inputs") or {}).get("schema") or {"type": "object", "properties": {}}
    return ExposedTool(
        name=automation.mcp_tool_name or "",
        description=str(description),
        input_schema=schema,
        automation_id=automation.id,
    )


def settled(run: Run) -> bool:
    """A run a caller stops waiting for: it ended, or it waits for a human's decision."""
    return is_finished(run) or run.status == RunStatus.awaiting_approval


def run_url(run: Run) -> str:
    return f"/api/v1/spaces/{run.space_id}/runs/{run.id}"


def outcome(run: Run, approval_id: uuid.UUID | None = None) -> ToolOutcome:
    """The tool's answer for a run as it is now (finished, waiting for approval, or still going)."""
    status = RunStatus(run.status)
    structured: dict[str, Any] = {"run_id": str(run.id), "status": status.value, "url": run_url(run)}
    if status == RunStatus.succeeded:
        structured["output"] = run.output
        return ToolOutcome(False, f"The run {run.id} succeeded.", structured)
    if status == RunStatus.awaiting_approval:
        structured["approval_id"] = str(approval_id) if approval_id else None
        return ToolOutcome(
            False,
            f"The run {run.id} waits for approval {approval_id} by a person; "
            "it goes on once approved. Ask again with the run's URL to see how it ended.",
            structured,
        )
    if status == RunStatus.dropped:
        structured["reason"] = run.reason
        return ToolOutcome(True, f"The call was refused and nothing ran: {run.reason}.", structured)
    if status in (RunStatus.failed, RunStatus.cancelled, RunStatus.timed_out):
        structured["error"] = run.error
        structured["reason"] = run.reason
        message = (run.error or {}).get("message") if isinstance(run.error, dict) else None
        return ToolOutcome(
            True, f"The run {run.id} {status.value}: {message or run.reason or 'no detail'}.", structured
        )
    return ToolOutcome(False, f"The run {run.id} is {status.value}; it has not finished yet.", structured)


def refusal_outcome(error: AppError) -> ToolOutcome:
    """A call refused before any run was made (bad arguments, paused, rate limited), as a tool error."""
    problems = "; ".join(f"{d.path or '/'} {d.message}" for d in error.details)
    text = f"{error.code}: {error.message}" + (f" ({problems})" if problems else "")
    body = error.as_body()["error"]
    return ToolOutcome(True, text, {"error": body})


class McpToolService:
    async def principal(self, session: AsyncSession, token: str | None, space_id: uuid.UUID) -> McpPrincipal:
        """The caller of a space's MCP server: 401 without a valid token, 404 for a space they are not
        a member of (whatever the token), 403 for a token without the `mcp` scope or a role that
        cannot run automations."""
        caller, role = await auth_service.authenticate_in_space(session, token, space_id, scoped=True)
        access = member(caller, space_id, role)
        automation_ids = mcp_automations(caller.scopes)
        access.require(Permissions.write_automations)
        return McpPrincipal(access=access, automation_ids=automation_ids)

    async def list_tools(self, session: AsyncSession, principal: McpPrincipal) -> list[ExposedTool]:
        """The space's active, exposed automations the token may call."""
        automations = await McpExposureRepository(session).exposed(
            principal.access.space_id, principal.automation_ids
        )
        return [tool_of(automation) for automation in automations]

    async def call(
        self,
        session: AsyncSession,
        principal: McpPrincipal,
        tool_name: str,
        arguments: dict[str, Any],
        *,
        limits: DispatchLimits,
        limiter: Limiter,
        rate: RateLimit,
    ) -> FireResult:
        """Fire the automation exposed as `tool_name`, as the token's user (trigger type `mcp`).

        Raises (nothing written): 404 `mcp_tool_not_found` for a tool the token does not name or that no
        automation exposes, 409 `automation_paused`, 429 `rate_limited`, 422 `invalid_inputs`."""
        automation = await McpExposureRepository(session).by_tool_name(
            principal.access.space_id, tool_name, principal.automation_ids
        )
        if automation is None:
            raise NotFound(f"No tool named {tool_name!r} for this token.", code="mcp_tool_not_found")
        # The fire guards first, as for a webhook: a refused call does not use up the limit.
        error = refusal(automation.status, "mcp")
        if error is not None:
            raise error
        key = f"mcp:{principal.access.caller.token_id}:{automation.id}"
        decision = await limiter.allow(key, limit=rate.limit, window_seconds=rate.window_seconds)
        if not decision.allowed:
            raise ToolRateLimited(
                f"Too many calls of {tool_name!r} with this token; "
                f"try again in {max(1, round(decision.retry_after_seconds))} s."
            )
        request = FireRequest(
            trigger_type="mcp",
            payload={"tool": tool_name},
            inputs=arguments,
            actor_id=principal.access.user_id,
        )
        return await dispatcher.fire(session, (automation, request), limits)

    async def pending_approval(self, session: AsyncSession, run: Run) -> uuid.UUID | None:
        return await McpExposureRepository(session).pending_approval(run.id)


mcp_tool_service = McpToolService()
