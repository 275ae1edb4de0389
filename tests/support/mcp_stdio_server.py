"""A real MCP server over stdio (`python -m tests.support.mcp_stdio_server`): the operator-declared kind.

One tool, `shout`, answers its `text` upper-cased as structured content; `MCP_STDIO_GREETING` in its
environment (set by the operator's declaration) is prefixed, to show the declared env reaches it, and
`leaked` names any variable of the service's own environment that reached it (there should be none).
"""

from __future__ import annotations

import os

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server


async def _list_tools(ctx: object, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name="shout",
                description="Answers the text upper-cased.",
                input_schema={
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"],
                },
                annotations=types.ToolAnnotations(read_only_hint=True),
            )
        ]
    )


async def _call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
    text = str((params.arguments or {}).get("text", ""))
    greeting = os.environ.get("MCP_STDIO_GREETING", "")
    # Whether anything of the service's own environment (its secret key, its database) reached us.
    leaked = sorted(name for name in os.environ if name.startswith("AUTOMATIONS_") or name.endswith("_URL"))
    return types.CallToolResult(
        content=[], structured_content={"text": greeting + text.upper(), "leaked": leaked}
    )


async def main() -> None:
    server = Server("stdio-test", on_list_tools=_list_tools, on_call_tool=_call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
