"""MCP call cost: one tool call as the service makes it (through its pool of open sessions) and with a
session opened per call, each against the floor of a call inside one session held open by hand; and
the native `http.request` capability's port doing the same work (POST two numbers, read the sum) on the
same loopback server. All of them go through the egress guard."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from app.integrations.http import GuardedHttp
from app.integrations.mcp.client import HttpEndpoint, connect
from app.integrations.mcp.pool import McpSessionPool
from app.security.egress import EgressAllowList
from bench.report import Headline, Row, median, ms, ratio, within
from bench.stack import log
from tests.support.mcp_server import Asgi, McpTestServer

ALLOW = EgressAllowList.parse("127.0.0.1/32")
TIMEOUT = 10.0


class _BenchServer(McpTestServer):
    """The test MCP server plus a plain JSON `/add` route: the same work without MCP."""

    def _app(self) -> Asgi:
        mcp = super()._app()

        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["path"] == "/add":
                body = b""
                while True:
                    message = await receive()
                    body += message.get("body", b"")
                    if not message.get("more_body"):
                        break
                args = json.loads(body)
                answer = json.dumps({"sum": args["a"] + args["b"]}).encode()
                headers = [(b"content-type", b"application/json")]
                await send({"type": "http.response.start", "status": 200, "headers": headers})
                await send({"type": "http.response.body", "body": answer})
                return
            await mcp(scope, receive, send)

        return app


async def _mcp_call(url: str) -> Any:
    async with connect(HttpEndpoint(url), allow=ALLOW, timeout_seconds=TIMEOUT) as session:
        return (await session.call_tool("add", {"a": 1, "b": 2}, TIMEOUT)).structured


async def _native_call(http: GuardedHttp, url: str) -> Any:
    answer = await http.request(
        "POST", url, headers={}, params={}, json_body={"a": 1, "b": 2}, content=None, timeout_seconds=TIMEOUT
    )
    return json.loads(answer.content)


async def _pooled_call(pool: McpSessionPool, url: str) -> Any:
    return (await pool.call_tool("bench", HttpEndpoint(url), "add", {"a": 1, "b": 2}, TIMEOUT)).structured


Call = Callable[[], Awaitable[Any]]


async def _block(call: Call, calls: int) -> tuple[float, float]:
    """Wall and process CPU seconds per call over `calls` calls (the server runs in this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        await call()
    return (time.perf_counter() - wall) / calls, (time.process_time() - cpu) / calls


async def _measure(server: _BenchServer, warmup: int, calls: int, repeat: int) -> dict[str, list[float]]:
    http = GuardedHttp(ALLOW)
    pool = McpSessionPool(size=8, idle_seconds=60, allow=ALLOW)
    add_url = f"http://127.0.0.1:{server.port}/add"
    # Every side must give the same answer, or the timing compares different work.
    assert await _mcp_call(server.url) == await _pooled_call(pool, server.url) == {"sum": 3}
    assert await _native_call(http, add_url) == {"sum": 3}
    samples: dict[str, list[float]] = {}
    try:
        async with connect(HttpEndpoint(server.url), allow=ALLOW, timeout_seconds=3600) as session:
            sides: dict[str, Call] = {
                "per_call": lambda: _mcp_call(server.url),
                "pooled": lambda: _pooled_call(pool, server.url),
                "reused": lambda: session.call_tool("add", {"a": 1, "b": 2}, TIMEOUT),
                "native": lambda: _native_call(http, add_url),
            }
            for call in sides.values():
                await _block(call, warmup)
            for index in range(repeat):
                # The order turns every repeat, so no side always follows the same one.
                names = list(sides)
                names = names[index % len(names) :] + names[: index % len(names)]
                for name in names:
                    wall, cpu = await _block(sides[name], calls)
                    samples.setdefault(name, []).append(wall)
                    samples.setdefault(f"{name}_cpu", []).append(cpu)
    finally:
        await pool.aclose()
    return samples


def run(warmup: int, calls: int, repeat: int) -> list[Row]:
    log(f"mcp call cost: {calls} calls x {repeat} repeats per side")
    server = _BenchServer().start()
    try:
        samples = asyncio.run(_measure(server, warmup, calls, repeat))
    finally:
        server.stop()
    per_call, pooled, reused, native, per_call_cpu, pooled_cpu, reused_cpu = (
        median(samples[key])
        for key in ("per_call", "pooled", "reused", "native", "per_call_cpu", "pooled_cpu", "reused_cpu")
    )
    reused_text = f"{ms(reused)} (one session held open by hand, same server)"
    alternating = f"median of {repeat} x {calls}, the four sides in turning order"
    return [
        Row(
            "MCP tool call (pooled session, as the service makes it)",
            f"{ms(pooled)} per call",
            reused_text,
            ratio(pooled, reused),
            f"tools/call in the session the pool keeps open for the connection (lookup, hold, call, "
            f"release) over streamable HTTP through the egress guard; process CPU per call (client and "
            f"server) {ms(pooled_cpu)} vs {ms(reused_cpu)} reused ({ratio(pooled_cpu, reused_cpu)}); the "
            f"native http.request port doing the same work takes {ms(native)}; {alternating}",
            target="≤ 1.5x reused-session cost",
            headlines=(
                Headline(
                    "mcp",
                    f"{ms(pooled)} per call ({ms(per_call)} with a session per call)",
                    f"{ratio(pooled, reused)} (reused session {ms(reused)})",
                    within(pooled, reused, 1.5),
                ),
            ),
        ),
        Row(
            "MCP tool call (a session per call)",
            f"{ms(per_call)} per call",
            reused_text,
            ratio(per_call, reused),
            f"connect + initialise + tools/call + close, what each call cost before sessions were pooled; "
            f"process CPU per call {ms(per_call_cpu)} ({ratio(per_call_cpu, reused_cpu)} the reused "
            f"session's); {ratio(per_call, native)} the native http.request port; {alternating}",
        ),
    ]
