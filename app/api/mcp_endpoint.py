"""The process's MCP server endpoint: the SDK's stateless streamable-HTTP session manager, built on the
first MCP request and run in a task of its own until the application stops.

Stateless: every request gets a fresh transport and nothing is remembered between requests, so any API
process answers any request of a client (no session id, no sticky routing). Who calls is decided per
request from its bearer token (`app.api.routes.mcp_server`); the tools and runs live in PostgreSQL.

The SDK (tens of MiB of models) is imported on the first MCP request, not when the API starts: most
API processes never serve one.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from starlette.types import Receive, Scope, Send

PRINCIPAL_SCOPE_KEY = "automations.mcp_principal"
"""Where the route leaves the authenticated caller (an `McpPrincipal`) in the ASGI scope for the handlers."""


class _Manager(Protocol):
    async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None: ...

    def run(self) -> Any: ...


class McpServerEndpoint:
    """Hands MCP requests to the SDK's session manager, started on first use and stopped by `close`."""

    def __init__(self) -> None:
        self._manager: _Manager | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._lock = asyncio.Lock()

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        manager = await self._started()
        await manager.handle_request(scope, receive, send)

    async def _started(self) -> _Manager:
        async with self._lock:
            if self._manager is None:
                # The SDK and the handlers load on first use only.
                from app.api import mcp_handlers
                from app.integrations.mcp.server import build_session_manager

                manager = build_session_manager(
                    mcp_handlers.SERVER_NAME,
                    mcp_handlers.SERVER_INSTRUCTIONS,
                    mcp_handlers.list_tools,
                    mcp_handlers.call_tool,
                )
                ready = asyncio.Event()
                # The manager's task group belongs to this task, so it outlives the request that started it.
                self._task = asyncio.create_task(self._run(manager, ready))
                await ready.wait()
                self._manager = manager
            return self._manager

    async def _run(self, manager: _Manager, ready: asyncio.Event) -> None:
        async with manager.run():
            ready.set()
            await self._stop.wait()

    async def close(self) -> None:
        """Stop the session manager (in-flight MCP requests are cancelled); a no-op if it never started."""
        if self._task is not None:
            self._stop.set()
            await self._task
            self._task = None
