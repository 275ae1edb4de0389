"""Talking to one MCP server: open a session, list its tools to the end, call one tool.

`connect` opens a session for one harvest or one call (connect, initialise, one or a few requests,
close). Tool calls over plain streamable HTTP keep their sessions open between calls instead (see
`app.integrations.mcp.pool`); both open them with `open_http`. HTTP goes through the egress guard
(`egress_client_httpx2`); a stdio server is a command the operator declared, run as a child process.
The SDK reports failures as exception groups around transport errors; `classify` turns them into one
`McpError` with a stable code.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable, Mapping, MutableSequence, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.integrations.mcp.errors import (
    McpError,
    McpProtocolError,
    McpServerError,
    McpUnauthorized,
    McpUnreachable,
    classify,
)
from app.security.egress import EgressAllowList, Resolver

if TYPE_CHECKING:
    import httpx2
    import mcp_types as types
    from mcp.client import Client

# A server may hold a page open or list forever; these bound one harvest.
MAX_LIST_PAGES = 200
MAX_RESPONSE_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True, repr=False)
class HttpEndpoint:
    """A streamable HTTP server. `headers` may carry a credential: the repr never shows them."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    auth: httpx2.Auth | None = None
    credentials: tuple[str, ...] = ()
    """The secret values in `headers`: whatever the server echoes back is scrubbed of them."""

    def __repr__(self) -> str:
        return f"HttpEndpoint(url={self.url!r}, headers={sorted(self.headers)})"


@dataclass(frozen=True)
class StdioEndpoint:
    """An operator-declared command speaking MCP on its stdin and stdout."""

    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


Endpoint = HttpEndpoint | StdioEndpoint


@dataclass(frozen=True)
class ToolListing:
    """One tool as the server described it (schemas and annotations as sent, annotations camelCase)."""

    name: str
    description: str
    input_schema: Any
    output_schema: Any
    annotations: dict[str, Any]


@dataclass(frozen=True)
class Listing:
    """The tools of a server, up to the cap; `truncated` when it listed more."""

    tools: list[ToolListing]
    truncated: bool


@dataclass(frozen=True)
class ToolAnswer:
    """A tool's answer: structured content when it sent some, else its content blocks; and whether it
    reported an error."""

    structured: Any
    content: list[dict[str, Any]]
    is_error: bool


class McpSession:
    """An open session with one server."""

    def __init__(self, client: Client) -> None:
        self._client = client

    async def list_tools(self, limit: int) -> Listing:
        """Every tool, following `nextCursor` to the end (at most `limit` kept), bypassing any cache."""
        tools: list[ToolListing] = []
        cursor: str | None = None
        seen_cursors: set[str] = set()
        for _ in range(MAX_LIST_PAGES):
            page = await self._client.list_tools(cursor=cursor, cache_mode="bypass")
            for tool in page.tools:
                if len(tools) >= limit:
                    return Listing(tools, truncated=True)
                tools.append(_listing(tool))
            cursor = page.next_cursor
            if cursor is None:
                return Listing(tools, truncated=False)
            if cursor in seen_cursors:
                raise McpProtocolError(f"the server repeated the tools/list cursor {cursor[:40]!r}")
            seen_cursors.add(cursor)
        raise McpProtocolError(f"tools/list did not end within {MAX_LIST_PAGES} pages")

    async def call_tool(self, name: str, arguments: dict[str, Any], timeout_seconds: float) -> ToolAnswer:
        """Call one tool. The answer is not checked against the tool's output schema here: the capability
        pipeline checks it against the schema harvested earlier, with the service's own validator."""
        import mcp_types as types  # the SDK loads on first use (see `connect`)

        request = types.CallToolRequest(params=types.CallToolRequestParams(name=name, arguments=arguments))
        result = await self._client.session.send_request(
            request, types.CallToolResult, request_read_timeout_seconds=timeout_seconds
        )
        return ToolAnswer(
            structured=result.structured_content,
            content=[
                block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content
            ],
            is_error=bool(result.is_error),
        )


def _listing(tool: types.Tool) -> ToolListing:
    annotations = (
        tool.annotations.model_dump(mode="json", by_alias=True, exclude_none=True) if tool.annotations else {}
    )
    return ToolListing(
        name=tool.name,
        description=tool.description or "",
        input_schema=tool.input_schema,
        output_schema=tool.output_schema,
        annotations=annotations,
    )


@asynccontextmanager
async def open_http(
    endpoint: HttpEndpoint,
    *,
    allow: EgressAllowList | None,
    request_timeout_seconds: float,
    resolver: Resolver | None,
    statuses: MutableSequence[int],
    pin_hosts: bool = False,
    observe: Callable[[httpx2.Response], None] | None = None,
) -> AsyncIterator[Client]:
    """An initialised client of a streamable HTTP server through the egress guard; the HTTP statuses
    it receives are appended to `statuses` (the SDK hides a 401 behind a generic error); `observe` sees
    each response, called in the context of the request's sender.

    `pin_hosts` keeps every connection of this client on the addresses checked for its first one."""
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    from app.security.egress.httpx2_bridge import egress_client_httpx2

    async def record(response: httpx2.Response) -> None:
        statuses.append(response.status_code)
        if observe is not None:
            observe(response)

    http = egress_client_httpx2(
        allow=allow,
        timeout=request_timeout_seconds,
        max_response_bytes=MAX_RESPONSE_BYTES,
        resolver=resolver,
        headers=endpoint.headers,
        auth=endpoint.auth,
        event_hooks={"response": [record]},
        pin_hosts=pin_hosts,
    )
    async with http:
        transport = streamable_http_client(endpoint.url, http_client=http)
        async with Client(transport, cache=None, read_timeout_seconds=request_timeout_seconds) as client:
            yield client


def failure(exc: BaseException, statuses: Sequence[int]) -> McpError:
    """One `McpError` for what a session raised; a refused credential wins over what it caused."""
    refused = [status for status in statuses if status in (401, 403)]
    error = classify(exc)
    if refused and isinstance(error, McpServerError | McpUnreachable | McpProtocolError):
        error = McpUnauthorized(f"the MCP server refused the credentials (HTTP {refused[-1]})")
    return error


@asynccontextmanager
async def connect(
    endpoint: Endpoint,
    *,
    allow: EgressAllowList | None,
    timeout_seconds: float,
    resolver: Resolver | None = None,
) -> AsyncIterator[McpSession]:
    """Open a session; every failure, inside the block too, comes out as an `McpError`.

    `timeout_seconds` bounds the whole session, from connecting to closing.
    """
    # The SDK (tens of MiB of models) is imported on the first session, not when the API or a worker
    # starts: most processes never talk to an MCP server.
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    statuses: list[int] = []
    try:
        async with asyncio.timeout(timeout_seconds):
            if isinstance(endpoint, HttpEndpoint):
                async with open_http(
                    endpoint,
                    allow=allow,
                    request_timeout_seconds=timeout_seconds,
                    resolver=resolver,
                    statuses=statuses,
                ) as client:
                    yield McpSession(client)
            else:
                parameters = StdioServerParameters(
                    command=endpoint.command, args=list(endpoint.args), env=dict(endpoint.env) or None
                )
                # The child's stderr goes to this process's own stderr file. Celery replaces
                # `sys.stderr` in a worker with a logger that has no file descriptor to hand on.
                errlog = sys.__stderr__ or sys.stderr
                stdio = stdio_client(parameters, errlog=errlog)
                async with Client(stdio, cache=None, read_timeout_seconds=timeout_seconds) as client:
                    yield McpSession(client)
    except McpError:
        raise
    except TimeoutError:
        raise McpError.timeout(timeout_seconds) from None
    except BaseException as exc:
        if not isinstance(exc, Exception | BaseExceptionGroup):
            raise
        raise failure(exc, statuses) from None
