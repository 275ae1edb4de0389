"""What the space MCP server's tools do, per HTTP request: list the caller's tools, call one.

Each request reaches these with its caller already authenticated by the route, as an `McpPrincipal`
in the ASGI scope. They open short transactions of their own: a call that waits for its run holds no
database connection meanwhile, only a subscription to the process's run-change hub (the mechanism
behind run now's `wait_seconds` and a webhook's `?wait`).
"""

from __future__ import annotations

import json
import time
from typing import Any

from starlette.requests import Request

from app.api.deps import app_state, get_limits, get_rate_limiter, get_settings, request_transaction
from app.api.mcp_endpoint import PRINCIPAL_SCOPE_KEY
from app.definitions.run_states import RunStatus
from app.errors import AppError, NotFound, Unauthorized
from app.integrations.mcp.server import Progress, ToolAnswer, ToolSpec, UnknownTool
from app.persistence.models import Run
from app.persistence.run_events import RunEventHub
from app.services.mcp_server.tools import (
    McpPrincipal,
    RateLimit,
    ToolOutcome,
    mcp_tool_service,
    outcome,
    refusal_outcome,
    settled,
)
from app.services.runs.follow import wait_until_finished

SERVER_NAME = "automations"
SERVER_INSTRUCTIONS = (
    "Each tool runs an automation of this space and answers with the run's output when it finishes in "
    "time, otherwise with the run's id and status. A run may wait for a person's approval."
)
PROGRESS_SECONDS = 5.0
"""While a call waits for its run, a progress notification this often (when the client asked for them)."""


def _caller(request: Any) -> tuple[Request, McpPrincipal]:
    principal = request.scope.get(PRINCIPAL_SCOPE_KEY) if isinstance(request, Request) else None
    if not isinstance(request, Request) or not isinstance(principal, McpPrincipal):
        raise Unauthorized()  # the route always sets it: a request without it was never authenticated
    return request, principal


async def list_tools(http_request: Any) -> list[ToolSpec]:
    """The space's active, exposed automations the caller's token names."""
    request, principal = _caller(http_request)
    async with request_transaction(request) as session:
        tools = await mcp_tool_service.list_tools(session, principal)
    return [ToolSpec(tool.name, tool.description, tool.input_schema) for tool in tools]


def _answer(result: ToolOutcome) -> ToolAnswer:
    structured = json.loads(json.dumps(result.structured, default=str))
    return ToolAnswer(result.is_error, f"{result.text}\n{json.dumps(structured)}", structured)


async def call_tool(
    http_request: Any, name: str, arguments: dict[str, Any], progress: Progress
) -> ToolAnswer:
    """Fire the automation behind the tool, wait a while for its run, and answer how it went."""
    request, principal = _caller(http_request)
    settings = get_settings(request)
    try:
        async with request_transaction(request) as session:
            fired = await mcp_tool_service.call(
                session,
                principal,
                name,
                arguments,
                limits=get_limits(request),
                limiter=get_rate_limiter(request),
                rate=RateLimit(settings.mcp_rate_limit, settings.mcp_rate_window_seconds),
            )
    except NotFound as error:
        # The same answer whether no automation exposes the name or the token does not name it.
        raise UnknownTool(error.message) from None
    except AppError as error:
        # Refused before any run was written (bad arguments, paused, rate limited): the agent reads why.
        return _answer(refusal_outcome(error))
    run = fired.run
    if not settled(run) and settings.mcp_call_wait_seconds > 0:
        run = await _follow(request, run, settings.mcp_call_wait_seconds, progress)
    if run.status != RunStatus.awaiting_approval:
        return _answer(outcome(run))
    async with request_transaction(request) as session:
        approval_id = await mcp_tool_service.pending_approval(session, run)
    return _answer(outcome(run, approval_id))


async def _follow(request: Request, run: Run, seconds: float, progress: Progress) -> Run:
    """The run once it ended or waits for approval, or as it is after `seconds`; progress meanwhile."""
    hub = app_state(request, "run_events", RunEventHub)
    run_id, space_id = run.id, run.space_id

    async def read() -> Run | None:
        async with request_transaction(request) as session:
            return await session.get(Run, run_id)

    started = time.monotonic()
    while True:
        left = seconds - (time.monotonic() - started)
        if left <= 0:
            return run
        step = min(PROGRESS_SECONDS, left)
        run = await wait_until_finished(hub, space_id, run_id, step, read, settled) or run
        if settled(run):
            return run
        await progress(time.monotonic() - started, seconds, f"run {run.id} is {run.status}")
