"""The space's MCP server: its exposed automations as tools, for agents with an `mcp`-scoped token.

`POST /api/v1/spaces/{space_id}/mcp` speaks MCP's streamable HTTP transport (JSON-RPC in, JSON or
server-sent events out) in stateless mode. The route authenticates the bearer token and the space
before the SDK sees the request: 401 for no valid token, 404 for a space the token's user is not a
member of, 403 for a token without the `mcp` scope.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.types import Receive, Scope, Send

from app.api.deps import app_state, request_transaction
from app.api.mcp_endpoint import PRINCIPAL_SCOPE_KEY, McpServerEndpoint
from app.services.mcp_server.tools import McpPrincipal, mcp_tool_service

router = APIRouter(prefix="/spaces/{space_id}", tags=["mcp-server"])
_bearer = HTTPBearer(auto_error=False, description="An API token with the `mcp` scope")

_JSON_RPC_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "description": "A JSON-RPC 2.0 message of the MCP protocol (initialize, tools/list, "
                    "tools/call, ...).",
                    "required": ["jsonrpc", "method"],
                    "properties": {
                        "jsonrpc": {"const": "2.0"},
                        "id": {"type": ["string", "integer"]},
                        "method": {"type": "string"},
                        "params": {"type": "object"},
                    },
                }
            }
        },
    },
    "responses": {
        "200": {
            "description": "The JSON-RPC answer, as JSON or as a stream of server-sent events.",
            "content": {"application/json": {}, "text/event-stream": {}},
        }
    },
}


class _McpResponse(Response):
    """Hands the untouched request (body unread) to the SDK's session manager, with the caller."""

    def __init__(self, endpoint: McpServerEndpoint, principal: McpPrincipal) -> None:
        super().__init__()
        self._endpoint = endpoint
        self._principal = principal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._endpoint.handle({**scope, PRINCIPAL_SCOPE_KEY: self._principal}, receive, send)


@router.post(
    "/mcp",
    summary="The space's MCP server (streamable HTTP): exposed automations as tools",
    response_class=Response,
    openapi_extra=_JSON_RPC_BODY,
)
async def mcp_server(
    request: Request,
    space_id: Annotated[uuid.UUID, Path()],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Response:
    # A short transaction of its own: the MCP request that follows (a tool call may wait for its run)
    # holds no connection while it waits.
    async with request_transaction(request) as session:
        principal = await mcp_tool_service.principal(
            session, credentials.credentials if credentials else None, space_id
        )
    return _McpResponse(app_state(request, "mcp_endpoint", McpServerEndpoint), principal)
