"""A real MCP server (the `mcp` package's low-level `Server`) on loopback, speaking streamable HTTP.

Its tool list is a plain dict the test changes between harvests (`server.tools[...] = ...`), listed
in pages of `page_size`. Built-in behaviours of `call_tool`, chosen by the tool's name:
`echo` answers its arguments as structured content, `add` adds `a` and `b`, `fail` answers
`isError` with its `message`, `slow` sleeps `seconds`, `reflect` answers the request headers the
server saw (text content) and the bare bearer token (structured content). Every request's headers
are recorded in `seen_headers`, and every `tools/list` request a client sent is counted in
`list_calls` (the SDK's server also lists its own tools to check a call's headers: those do not count);
a `required_bearer` makes the server answer 401 to any request
without `Authorization: Bearer <it>`.

Every handshake a client opens a session with (`server/discover`, or `initialize` in older protocol
versions) is counted in `session_opens`. A `legacy` server answers `server/discover` as a server of an
older protocol version does (no such method), so clients fall back to `initialize` and it hands out
session ids (a restart forgets them); the session id of each `tools/call` is kept in `call_sessions`
and its request's headers in `call_headers` (a session's other requests, such as its background
stream, may reach the server after a later call).
`restart()` serves again on the same port; `kill()` drops every open connection at once (as a crashed
server would) and stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
import uvicorn
from mcp.server.lowlevel.server import Server
from mcp.server.transport_security import TransportSecuritySettings

MCP_STDIO_SERVERS: dict[str, dict[str, Any]] = {
    "shouter": {
        "command": sys.executable,
        "args": ["-m", "tests.support.mcp_stdio_server"],
        "env": {"MCP_STDIO_GREETING": "hey "},
    }
}
"""What the tests' operator declares in AUTOMATIONS_MCP_STDIO_SERVERS."""

Asgi = Callable[
    [dict[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]
]


def tool(
    name: str,
    *,
    description: str = "A test tool.",
    input_schema: dict[str, Any] | None = None,
    output_schema: dict[str, Any] | None = None,
    read_only: bool | None = None,
    destructive: bool | None = None,
) -> types.Tool:
    """A tool description as a server lists it."""
    annotations = None
    if read_only is not None or destructive is not None:
        annotations = types.ToolAnnotations(read_only_hint=read_only, destructive_hint=destructive)
    return types.Tool(
        name=name,
        description=description,
        input_schema=input_schema or {"type": "object", "properties": {}},
        output_schema=output_schema,
        annotations=annotations,
    )


def default_tools() -> dict[str, types.Tool]:
    number = {"type": "number"}
    return {
        "echo": tool(
            "echo",
            description="Answers its arguments.",
            input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            read_only=True,
        ),
        "add": tool(
            "add",
            description="Adds two numbers.",
            input_schema={"type": "object", "properties": {"a": number, "b": number}, "required": ["a", "b"]},
            output_schema={"type": "object", "properties": {"sum": number}, "required": ["sum"]},
            read_only=True,
        ),
        "fail": tool("fail", description="Always reports an error.", destructive=True),
        "slow": tool(
            "slow",
            description="Sleeps, then answers.",
            input_schema={"type": "object", "properties": {"seconds": number}},
        ),
        "reflect": tool("reflect", description="Answers the headers it saw.", read_only=True),
    }


@dataclass
class McpTestServer:
    """The server, its mutable tool list and what it saw."""

    tools: dict[str, types.Tool] = field(default_factory=default_tools)
    page_size: int = 50
    required_bearer: str | None = None
    seen_headers: list[dict[str, str]] = field(default_factory=list)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    list_calls: int = 0
    session_opens: int = 0
    call_sessions: list[str | None] = field(default_factory=list)
    call_headers: list[dict[str, str]] = field(default_factory=list)
    legacy: bool = False
    _discovering: Any = None
    host: str = "127.0.0.1"
    port: int = 0
    _server: uvicorn.Server | None = None
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/mcp"

    def reset(self) -> None:
        self.tools = default_tools()
        self.page_size = 50
        self.required_bearer = None
        self.seen_headers.clear()
        self.calls.clear()
        self.list_calls = 0
        self.session_opens = 0
        self.call_sessions.clear()
        self.call_headers.clear()

    async def _list_tools(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        names = list(self.tools)
        start = int(params.cursor) if params and params.cursor else 0
        end = start + self.page_size
        page = [self.tools[name] for name in names[start:end]]
        return types.ListToolsResult(tools=page, next_cursor=str(end) if end < len(names) else None)

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = dict(params.arguments or {})
        self.calls.append((params.name, args))
        name = params.name.rsplit("_v", 1)[0]
        if name == "echo":
            return types.CallToolResult(content=[], structured_content=args)
        if name == "add":
            total = args.get("a", 0) + args.get("b", 0)
            return types.CallToolResult(
                content=[types.TextContent(text=str(total))], structured_content={"sum": total}
            )
        if name == "fail":
            message = str(args.get("message", "the tool failed"))
            return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)
        if name == "slow":
            await asyncio.sleep(float(args.get("seconds", 1)))
            return types.CallToolResult(content=[types.TextContent(text="done")])
        if name == "reflect":
            seen = self.seen_headers[-1] if self.seen_headers else {}
            token = seen.get("authorization", "").removeprefix("Bearer ")
            return types.CallToolResult(
                content=[types.TextContent(text=json.dumps(seen))], structured_content={"token": token}
            )
        return types.CallToolResult(content=[types.TextContent(text=f"called {params.name}")])

    def _app(self) -> Asgi:
        server = Server("test-server", on_list_tools=self._list_tools, on_call_tool=self._call_tool)
        inner = server.streamable_http_app(
            stateless_http=not self.legacy,
            json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )

        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
                self.seen_headers.append(headers)
                if self.required_bearer and headers.get("authorization") != f"Bearer {self.required_bearer}":
                    await send({"type": "http.response.start", "status": 401, "headers": []})
                    await send({"type": "http.response.body", "body": b""})
                    return
                if scope.get("method") == "POST":
                    receive = await self._counting(receive, headers)
                    if self.legacy and self._discovering:
                        await self._no_such_method(send)
                        return
            await inner(scope, receive, send)

        return app

    async def _counting(self, receive: Any, headers: dict[str, str]) -> Any:
        """Read the request body whole, count the `tools/list` requests in it, and replay it."""
        messages = []
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request" or not message.get("more_body"):
                break
        body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
        self._discovering = None
        with contextlib.suppress(ValueError):
            parsed = json.loads(body or b"null")
            for request in parsed if isinstance(parsed, list) else [parsed]:
                if isinstance(request, dict) and request.get("method") == "tools/list":
                    self.list_calls += 1
                if isinstance(request, dict) and request.get("method") == "server/discover":
                    self._discovering = request.get("id")
                if isinstance(request, dict) and request.get("method") == "tools/call":
                    self.call_sessions.append(headers.get("mcp-session-id"))
                    self.call_headers.append(headers)
                if isinstance(request, dict) and request.get("method") == "initialize":
                    self.session_opens += 1
        if self._discovering is not None and not self.legacy:
            self.session_opens += 1
        replay = iter(messages)

        async def replayed() -> Any:
            return next(replay, None) or await receive()

        return replayed

    async def _no_such_method(self, send: Any) -> None:
        """What a server older than `server/discover` answers it (the client then sends `initialize`)."""
        error = {
            "jsonrpc": "2.0",
            "id": self._discovering,
            "error": {"code": -32601, "message": "Method not found"},
        }
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": json.dumps(error).encode()})

    def start(self, port: int = 0) -> McpTestServer:
        """Serve on `port` (a free one when 0) in a thread of its own."""
        if port:
            self.port = port
        else:
            with socket.socket() as probe:
                probe.bind((self.host, 0))
                self.port = probe.getsockname()[1]
        config = uvicorn.Config(
            self._app(), host=self.host, port=self.port, log_level="warning", lifespan="on"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the MCP test server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            with contextlib.suppress(RuntimeError):
                self._thread.join(timeout=10)

    def restart(self) -> McpTestServer:
        """Stop, then serve a new server (no sessions, same tools) on the same port.

        The new server starts once the old one stopped listening: a stream a client still holds open (a
        stateful session's) keeps the old one's graceful shutdown waiting until the client closes it, and
        `stop` would wait out its whole timeout for nothing."""
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return self.start(self.port)
        server.should_exit = True
        deadline = time.monotonic() + 10
        while thread.is_alive() and any(listener.is_serving() for listener in server.servers):
            if time.monotonic() > deadline:
                raise RuntimeError("the MCP test server did not stop listening")
            time.sleep(0.02)
        return self.start(self.port)

    def kill(self) -> None:
        """Abort every open connection (calls in flight included) and stop without waiting for them."""
        server = self._server
        if server is None:
            return
        for connection in list(server.server_state.connections):
            transport = getattr(connection, "transport", None)
            loop = getattr(connection, "loop", None)
            if transport is not None and loop is not None:
                loop.call_soon_threadsafe(transport.abort)
        server.force_exit = True
        self.stop()
