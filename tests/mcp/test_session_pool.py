"""MCP sessions kept open between tool calls, seen from a real MCP server on loopback: reuse, idle
close, a restarted, stopped or killed server, keys that never share, the LRU bound, and the egress
guard's address pinning across a DNS change."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from app.integrations.mcp.client import HttpEndpoint
from app.integrations.mcp.errors import McpError, McpRefused, McpUnreachable
from app.integrations.mcp.pool import McpSessionPool
from app.security.egress import EgressAllowList
from tests.support.mcp_server import McpTestServer

ALLOW = EgressAllowList.parse("127.0.0.1/32")
TIMEOUT = 10.0


async def eventually(check: Callable[[], bool], what: str, within: float = 10.0) -> None:
    """Wait for `check()` to hold; the bound only keeps a broken build from hanging."""
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        await asyncio.sleep(0.01)


@pytest.fixture
def server() -> Iterator[McpTestServer]:
    started = McpTestServer().start()
    yield started
    started.stop()


@pytest.fixture
async def pool() -> AsyncIterator[McpSessionPool]:
    made = McpSessionPool(size=8, idle_seconds=60, allow=ALLOW)
    yield made
    await made.aclose()


async def add(pool: McpSessionPool, server: McpTestServer, key: object = "k") -> object:
    answer = await pool.call_tool(key, HttpEndpoint(server.url), "add", {"a": 1, "b": 2}, TIMEOUT)
    return answer.structured


class TestReuse:
    async def test_two_calls_share_one_session(self, pool: McpSessionPool, server: McpTestServer) -> None:
        assert await add(pool, server) == {"sum": 3}
        assert await add(pool, server) == {"sum": 3}
        assert server.session_opens == 1
        assert [name for name, _ in server.calls] == ["add", "add"]
        assert len(pool) == 1

    async def test_concurrent_calls_share_one_session(
        self, pool: McpSessionPool, server: McpTestServer
    ) -> None:
        await add(pool, server)
        answers = await asyncio.gather(*(add(pool, server) for _ in range(5)))
        assert answers == [{"sum": 3}] * 5
        assert server.session_opens == 1

    async def test_other_keys_never_share_a_session(
        self, pool: McpSessionPool, server: McpTestServer
    ) -> None:
        await add(pool, server, key=("space-a", "connection"))
        await add(pool, server, key=("space-b", "connection"))
        await add(pool, server, key=("space-a", "connection"))
        assert server.session_opens == 2
        assert len(pool) == 2

    async def test_a_tool_error_keeps_the_session(self, pool: McpSessionPool, server: McpTestServer) -> None:
        failed = await pool.call_tool("k", HttpEndpoint(server.url), "fail", {"message": "no"}, TIMEOUT)
        assert failed.is_error
        assert await add(pool, server) == {"sum": 3}
        assert server.session_opens == 1


def ended(pool: McpSessionPool) -> Callable[[], bool]:
    held = pool.open_sessions()
    return lambda: all(session.task.done() for session in held)


class TestClosing:
    async def test_an_idle_session_closes_and_the_next_call_opens_another(
        self, server: McpTestServer
    ) -> None:
        pool = McpSessionPool(size=8, idle_seconds=0.05, allow=ALLOW)
        await add(pool, server)
        await eventually(ended(pool), "the idle session closed")
        assert await add(pool, server) == {"sum": 3}
        assert server.session_opens == 2
        await pool.aclose()

    async def test_past_the_size_the_least_recent_session_closes(self, server: McpTestServer) -> None:
        pool = McpSessionPool(size=1, idle_seconds=60, allow=ALLOW)
        await add(pool, server, key="first")
        [first] = pool.open_sessions()
        await add(pool, server, key="second")
        await eventually(first.task.done, "the evicted session closed")
        assert len(pool) == 1
        await add(pool, server, key="second")
        assert server.session_opens == 2
        await pool.aclose()

    async def test_closing_the_pool_ends_every_session(self, server: McpTestServer) -> None:
        pool = McpSessionPool(size=8, idle_seconds=60, allow=ALLOW)
        await add(pool, server, key="a")
        await add(pool, server, key="b")
        held = pool.open_sessions()
        await pool.aclose()
        assert len(held) == 2
        assert all(session.task.done() for session in held)
        assert len(pool) == 0


class TestFailures:
    async def test_a_restarted_server_gets_a_new_session(
        self, pool: McpSessionPool, server: McpTestServer
    ) -> None:
        await add(pool, server)
        server.restart()
        assert await add(pool, server) == {"sum": 3}
        assert [name for name, _ in server.calls] == ["add", "add"]

    async def test_a_restarted_server_that_forgot_the_session_gets_the_call_on_a_new_one(
        self, pool: McpSessionPool
    ) -> None:
        legacy = McpTestServer(legacy=True).start()
        try:
            await add(pool, legacy)
            assert legacy.seen_headers[-1].get("mcp-session-id")
            legacy.restart()
            # The new server answers 404 to the old session id: nothing ran, so the call goes again.
            assert await add(pool, legacy) == {"sum": 3}
            assert legacy.session_opens == 2
            assert [name for name, _ in legacy.calls] == ["add", "add"]
        finally:
            await pool.aclose()
            legacy.stop()

    async def test_a_stopped_server_fails_clearly_then_recovers(
        self, pool: McpSessionPool, server: McpTestServer
    ) -> None:
        await add(pool, server)
        server.stop()
        with pytest.raises(McpUnreachable) as failed:
            await add(pool, server)
        assert "cannot reach the MCP server" in failed.value.message
        server.start(server.port)
        assert await add(pool, server) == {"sum": 3}

    async def test_a_server_killed_mid_call_fails_the_call_without_sending_it_again(
        self, pool: McpSessionPool, server: McpTestServer
    ) -> None:
        await add(pool, server)
        endpoint = HttpEndpoint(server.url)
        call = asyncio.create_task(pool.call_tool("k", endpoint, "slow", {"seconds": 30}, 60))
        await eventually(lambda: any(name == "slow" for name, _ in server.calls), "the slow call arrived")
        server.kill()
        # The bound only turns a hang into a failure: the call must end on its own, long before it.
        with pytest.raises(McpUnreachable) as failed:
            await asyncio.wait_for(call, timeout=20)
        assert "during the call" in failed.value.message
        assert "not sent again" in failed.value.message
        server.start(server.port)
        assert await add(pool, server) == {"sum": 3}
        assert [name for name, _ in server.calls].count("slow") == 1

    async def test_a_server_that_never_answers_times_out(
        self, pool: McpSessionPool, server: McpTestServer
    ) -> None:
        with pytest.raises(McpError) as failed:
            await pool.call_tool("k", HttpEndpoint(server.url), "slow", {"seconds": 30}, 0.5)
        assert failed.value.code == "mcp_unreachable"
        # The session outlives a call that gave up.
        assert await add(pool, server) == {"sum": 3}
        assert server.session_opens == 1
        server.kill()


class TestPinning:
    async def test_a_dns_change_never_moves_an_open_session(self) -> None:
        first = McpTestServer().start()
        other = McpTestServer(host="127.0.0.2").start(first.port)
        answers = {"mcp.test": "127.0.0.1"}
        allow = EgressAllowList.parse("127.0.0.1/32,127.0.0.2/32")
        pool = McpSessionPool(
            size=8, idle_seconds=60, allow=allow, resolver=lambda host, port: [answers[host]]
        )
        endpoint = HttpEndpoint(f"http://mcp.test:{first.port}/mcp")
        try:
            await pool.call_tool("k", endpoint, "add", {"a": 1, "b": 2}, TIMEOUT)
            answers["mcp.test"] = "127.0.0.2"
            # The restart drops the session's connection: the next call connects again.
            first.restart()
            await pool.call_tool("k", endpoint, "add", {"a": 1, "b": 2}, TIMEOUT)
            assert len(first.calls) == 2
            assert other.calls == []
            # A new session resolves and checks the name again.
            await pool.call_tool("new key", endpoint, "add", {"a": 1, "b": 2}, TIMEOUT)
            assert len(other.calls) == 1
        finally:
            await pool.aclose()
            first.stop()
            other.stop()

    async def test_a_new_session_is_checked_again(self, server: McpTestServer) -> None:
        answers = {"mcp.test": "127.0.0.1"}
        pool = McpSessionPool(
            size=8, idle_seconds=60, allow=ALLOW, resolver=lambda host, port: [answers[host]]
        )
        endpoint = HttpEndpoint(f"http://mcp.test:{server.port}/mcp")
        await pool.call_tool("k", endpoint, "add", {"a": 1, "b": 2}, TIMEOUT)
        answers["mcp.test"] = "10.1.2.3"
        with pytest.raises(McpRefused):
            await pool.call_tool("other", endpoint, "add", {"a": 1, "b": 2}, TIMEOUT)
        await pool.aclose()
