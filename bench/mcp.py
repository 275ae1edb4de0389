"""MCP call cost: one tool call as the service makes it (through its pool of open sessions) and with a
session opened per call, each against the floor of a call inside one session held open by hand; and
the native `http.request` capability's port doing the same work (POST two numbers, read the sum) on the
same loopback server. All of them go through the egress guard."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from app.integrations.http import GuardedHttp
from app.integrations.mcp.client import HttpEndpoint, connect
from app.integrations.mcp.pool import McpSessionPool
from app.security.egress import EgressAllowList
from bench.report import Row, median, ms, ratio, ratio_headline
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


async def _measure(server: _BenchServer, warmup: int, calls: int, repeat: int) -> dict[str, list[float]]:
    http = GuardedHttp(ALLOW)
    pool = McpSessionPool(size=8, idle_seconds=60, allow=ALLOW)
    add_url = f"http://127.0.0.1:{server.port}/add"
    # Every side must give the same answer, or the timing compares different work.
    assert await _mcp_call(server.url) == await _pooled_call(pool, server.url) == {"sum": 3}
    assert await _native_call(http, add_url) == {"sum": 3}
    for _ in range(warmup):
        await _mcp_call(server.url)
        await _pooled_call(pool, server.url)
        await _native_call(http, add_url)
    samples: dict[str, list[float]] = {"per_call": [], "pooled": [], "reused": [], "native": []}
    try:
        for _ in range(repeat):
            started = time.perf_counter()
            for _ in range(calls):
                await _mcp_call(server.url)
            samples["per_call"].append((time.perf_counter() - started) / calls)
            started = time.perf_counter()
            for _ in range(calls):
                await _pooled_call(pool, server.url)
            samples["pooled"].append((time.perf_counter() - started) / calls)
            async with connect(HttpEndpoint(server.url), allow=ALLOW, timeout_seconds=TIMEOUT) as session:
                await session.call_tool("add", {"a": 1, "b": 2}, TIMEOUT)  # opened before the clock starts
                started = time.perf_counter()
                for _ in range(calls):
                    await session.call_tool("add", {"a": 1, "b": 2}, TIMEOUT)
                samples["reused"].append((time.perf_counter() - started) / calls)
            started = time.perf_counter()
            for _ in range(calls):
                await _native_call(http, add_url)
            samples["native"].append((time.perf_counter() - started) / calls)
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
    per_call, pooled, reused, native = (
        median(samples[key]) for key in ("per_call", "pooled", "reused", "native")
    )
    reused_text = f"{ms(reused)} (one session held open by hand, same server)"
    alternating = f"median of {repeat} x {calls}, alternating"
    return [
        Row(
            "MCP tool call (pooled session, as the service makes it)",
            f"{ms(pooled)} per call",
            reused_text,
            ratio(pooled, reused),
            f"tools/call in the session the pool keeps open for the connection (lookup, hold, call, "
            f"release) over streamable HTTP through the egress guard; the native http.request port doing "
            f"the same work takes {ms(native)} ({ratio(pooled, native)} of it); {alternating}",
            target="≤ 1.5x reused-session cost",
            headlines=(ratio_headline("MCP tool call, pooled session", pooled, reused, 1.5),),
        ),
        Row(
            "MCP tool call (a session per call)",
            f"{ms(per_call)} per call",
            reused_text,
            ratio(per_call, reused),
            f"connect + initialise + tools/call + close, what each call cost before sessions were pooled; "
            f"{ratio(per_call, native)} the native http.request port; {alternating}",
        ),
    ]
