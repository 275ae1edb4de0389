"""Tool calls through the service keep one MCP session per space, connection and credential: seen from
a real MCP server on loopback that hands out session ids, by the sessions its tool calls came in.
(Harvests that a running worker makes of these connections open sessions too, but call no tool.)"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI

from app.adapters.mcp_capabilities import McpInvoker
from app.definitions.signals import StepError
from app.integrations.mcp.pool import McpSessionPool
from tests.mcp.conftest import connect
from tests.support.factories import Caller, Factory
from tests.support.mcp_server import McpTestServer

TIMEOUT = 10.0


@pytest.fixture
def mcp_server() -> Iterator[McpTestServer]:
    server = McpTestServer(legacy=True).start()
    yield server
    server.stop()


def sessions_called(server: McpTestServer) -> int:
    """How many sessions the server's tool calls came in (none outside a session)."""
    assert None not in server.call_sessions
    return len(set(server.call_sessions))


@pytest.fixture
async def invoker(app: FastAPI, mcp_server: McpTestServer) -> Any:
    """The service's invoker with a pool of its own, so each test counts only its own sessions.

    Set up after the test's server and closed before it stops: a session the pool still held would keep
    the server's shutdown waiting out its whole timeout."""
    runtime = app.state.runtime
    pool = McpSessionPool(size=8, idle_seconds=60, allow=runtime.mcp.allow)
    yield McpInvoker(app.state.sessionmaker, runtime.mcp, pool)
    await pool.aclose()


async def call(
    invoker: McpInvoker, caller: Caller, connection: dict[str, Any], tool: str, **args: Any
) -> Any:
    return await invoker.call(
        uuid.UUID(caller.space_id), uuid.UUID(connection["id"]), tool, dict(args), TIMEOUT
    )


async def put_secret(caller: Caller, value: str) -> None:
    response = await caller.request("PUT", caller.space_path("/secrets/crm_token"), json={"value": value})
    assert response.status_code in (200, 201), response.text


async def test_calls_of_one_connection_share_a_session(
    invoker: McpInvoker, factory: Factory, mcp_server: McpTestServer
) -> None:
    owner = await factory.owner()
    created = await connect(owner, mcp_server.url)
    assert await call(invoker, owner, created, "add", a=1, b=2) == {"sum": 3}
    assert await call(invoker, owner, created, "add", a=2, b=2) == {"sum": 4}
    assert len(mcp_server.call_sessions) == 2
    assert sessions_called(mcp_server) == 1
    assert len(invoker.pool) == 1


async def test_two_spaces_with_the_same_server_never_share_a_session(
    invoker: McpInvoker, factory: Factory, mcp_server: McpTestServer
) -> None:
    first = await factory.owner("First")
    second = await factory.owner("Second")
    mine = await connect(first, mcp_server.url)
    theirs = await connect(second, mcp_server.url)
    await call(invoker, first, mine, "add", a=1, b=2)
    await call(invoker, second, theirs, "add", a=1, b=2)
    await call(invoker, first, mine, "add", a=1, b=2)
    assert mcp_server.call_sessions[0] == mcp_server.call_sessions[2]
    assert sessions_called(mcp_server) == 2
    assert len(invoker.pool) == 2


async def test_a_rotated_token_gets_a_new_session(
    invoker: McpInvoker, factory: Factory, mcp_server: McpTestServer
) -> None:
    owner = await factory.owner()
    old, new = f"old-{uuid.uuid4().hex}", f"new-{uuid.uuid4().hex}"
    await put_secret(owner, old)
    mcp_server.required_bearer = old
    created = await connect(owner, mcp_server.url, auth={"type": "bearer", "secret": "crm_token"})
    assert await call(invoker, owner, created, "reflect") == {"token": "[REDACTED]"}

    await put_secret(owner, new)
    mcp_server.required_bearer = new
    assert await call(invoker, owner, created, "add", a=1, b=2) == {"sum": 3}
    assert mcp_server.call_headers[-1]["authorization"] == f"Bearer {new}"
    assert sessions_called(mcp_server) == 2


async def test_a_connection_moved_elsewhere_gets_a_new_session_and_a_clear_error(
    invoker: McpInvoker, factory: Factory, mcp_server: McpTestServer
) -> None:
    owner = await factory.owner()
    created = await connect(owner, mcp_server.url)
    await call(invoker, owner, created, "add", a=1, b=2)
    patched = await owner.request(
        "PATCH", owner.space_path(f"/mcp/connections/{created['id']}"), json={"url": "http://127.0.0.1:9/mcp"}
    )
    assert patched.status_code == 200
    with pytest.raises(StepError) as failed:
        await call(invoker, owner, created, "add", a=1, b=2)
    assert failed.value.code == "mcp_unreachable"


async def test_a_refused_token_fails_the_call_and_is_not_reused(
    invoker: McpInvoker, factory: Factory, mcp_server: McpTestServer
) -> None:
    owner = await factory.owner()
    await put_secret(owner, "right-token")
    mcp_server.required_bearer = "another-token"
    created = await connect(owner, mcp_server.url, auth={"type": "bearer", "secret": "crm_token"})
    with pytest.raises(StepError) as failed:
        await call(invoker, owner, created, "add", a=1, b=2)
    assert failed.value.code == "mcp_unauthorized"
    assert len(invoker.pool) == 0
