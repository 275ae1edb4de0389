"""MCP call overhead: one tool call through the MCP client (a session per call, as the service makes
it) against the native `http.request` capability's port doing the same work (POST two numbers, read
the sum) on the same loopback server. Both go through the egress guard."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from app.integrations.http import GuardedHttp
from app.integrations.mcp.client import HttpEndpoint, connect
from app.security.egress import EgressAllowList
from bench.report import Row, median, ms, ratio
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


async def _measure(server: _BenchServer, warmup: int, calls: int, repeat: int) -> dict[str, list[float]]:
    http = GuardedHttp(ALLOW)
    add_url = f"http://127.0.0.1:{server.port}/add"
    # Both sides must give the same answer, or the timing compares different work.
    assert await _mcp_call(server.url) == await _native_call(http, add_url) == {"sum": 3}
    for _ in range(warmup):
        await _mcp_call(server.url)
        await _native_call(http, add_url)
    samples: dict[str, list[float]] = {"mcp": [], "reused": [], "native": []}
    for _ in range(repeat):
        started = time.perf_counter()
        for _ in range(calls):
            await _mcp_call(server.url)
        samples["mcp"].append((time.perf_counter() - started) / calls)
        started = time.perf_counter()
        async with connect(HttpEndpoint(server.url), allow=ALLOW, timeout_seconds=TIMEOUT) as session:
            for _ in range(calls):
                await session.call_tool("add", {"a": 1, "b": 2}, TIMEOUT)
        samples["reused"].append((time.perf_counter() - started) / calls)
        started = time.perf_counter()
        for _ in range(calls):
            await _native_call(http, add_url)
        samples["native"].append((time.perf_counter() - started) / calls)
    return samples


def run(warmup: int, calls: int, repeat: int) -> list[Row]:
    log(f"mcp call overhead: {calls} calls x {repeat} repeats per side")
    server = _BenchServer().start()
    try:
        samples = asyncio.run(_measure(server, warmup, calls, repeat))
    finally:
        server.stop()
    mcp, reused, native = (median(samples[key]) for key in ("mcp", "reused", "native"))
    return [
        Row(
            "MCP tool call (a session per call)",
            f"{ms(mcp)} per call",
            f"{ms(native)} (native http.request port, same work, same server)",
            ratio(mcp, native),
            f"connect + initialise + tools/call + close over streamable HTTP through the egress guard; "
            f"in one reused session a call takes {ms(reused)} ({ratio(reused, native)} floor); "
            f"median of {repeat} x {calls}, alternating",
        )
    ]
