"""Serving MCP: the `mcp` SDK's low-level `Server` behind its stateless streamable-HTTP session manager.

The tools come from two callables the caller hands in, in plain data: this module knows the protocol,
not what the tools are. Stateless mode gives every HTTP request a fresh transport and remembers nothing
between requests, so any process of a multi-process API answers any request of a client. Answers stream
as server-sent events, so progress notifications reach a client while a call is still working.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError


@dataclass(frozen=True)
class ToolSpec:
    """One tool as the server lists it."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class ToolAnswer:
    """A tool call's result: an error or not, a text for the model, and structured content."""

    is_error: bool
    text: str
    structured: dict[str, Any] = field(default_factory=dict)


class UnknownTool(Exception):
    """The call names no tool this caller has; answered as a protocol error (invalid params)."""


Progress = Callable[[float, float | None, str | None], Awaitable[None]]
"""(progress, total, message): a progress notification, when the client asked for them."""
ListTools = Callable[[Any], Awaitable[list[ToolSpec]]]
"""(the HTTP request) -> the tools its caller may see."""
CallTool = Callable[[Any, str, dict[str, Any], Progress], Awaitable[ToolAnswer]]
"""(the HTTP request, tool name, arguments, progress) -> the answer; raises `UnknownTool`."""


def build_session_manager(
    name: str, instructions: str, list_tools: ListTools, call_tool: CallTool
) -> StreamableHTTPSessionManager:
    """A stateless session manager serving these tools; enter its `run()` before handling requests."""

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = await list_tools(ctx.request)
        return types.ListToolsResult(
            tools=[
                types.Tool(name=tool.name, description=tool.description, input_schema=tool.input_schema)
                for tool in tools
            ]
        )

    async def on_call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        async def progress(done: float, total: float | None, message: str | None) -> None:
            await ctx.session.report_progress(done, total, message)  # a no-op unless the client asked

        try:
            answer = await call_tool(ctx.request, params.name, dict(params.arguments or {}), progress)
        except UnknownTool as error:
            raise MCPError(types.INVALID_PARAMS, str(error)) from None
        return types.CallToolResult(
            content=[types.TextContent(text=answer.text)],
            structured_content=answer.structured,
            is_error=answer.is_error,
        )

    server: Server[Any] = Server(
        name, instructions=instructions, on_list_tools=on_list_tools, on_call_tool=on_call_tool
    )
    return StreamableHTTPSessionManager(server, stateless=True, json_response=False)
