"""MCP connections of a space and their tools: admins manage them, members read them."""

from __future__ import annotations

import uuid
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Path, Query, Response, status
from fastapi.responses import RedirectResponse

from app.api.body import JsonBodyRoute
from app.api.callback_page import CallbackPageRoute
from app.api.deps import CallerDep, PageDep, RuntimeDep, SessionDep, SpaceDep
from app.api.mcp_schemas import (
    AuthBearer,
    AuthHeader,
    AuthorizeOut,
    CallbackOut,
    CompletionBody,
    ConnectionCreate,
    ConnectionOut,
    ConnectionPatch,
    ToolOut,
    ToolPatch,
)
from app.api.schemas import PageOut
from app.persistence.models import McpConnection
from app.services.mcp.connections import AuthSpec, ConnectionSpec, mcp_connection_service
from app.services.mcp.oauth import AuthorizationEnded, mcp_oauth_service

router = APIRouter(prefix="/spaces/{space_id}/mcp/connections", tags=["mcp"], route_class=JsonBodyRoute)
callback_router = APIRouter(prefix="/mcp/oauth", tags=["mcp"], route_class=CallbackPageRoute)
completion_router = APIRouter(prefix="/mcp/oauth", tags=["mcp"], route_class=JsonBodyRoute)

# The web UI's page that completes an authorization with the signed-in user's token.
UI_COMPLETION_PAGE = "/connections/mcp-oauth"

ToolName = Annotated[str, Path(min_length=1, max_length=200, description="The tool's name on its server.")]


def _auth(auth: Any) -> AuthSpec | None:
    if auth is None:
        return None
    secret = auth.secret if isinstance(auth, AuthBearer | AuthHeader) else None
    header = auth.header if isinstance(auth, AuthHeader) else None
    return AuthSpec(type=auth.type, secret=secret, header=header)


def _out(connection: McpConnection) -> ConnectionOut:
    auth: dict[str, Any] = {"type": connection.auth_type}
    if connection.auth_secret is not None:
        auth["secret"] = connection.auth_secret
    if connection.auth_header is not None:
        auth["header"] = connection.auth_header
    return ConnectionOut.model_validate(connection).model_copy(update={"auth": auth})


@router.post(
    "", status_code=status.HTTP_201_CREATED, summary="Connect an MCP server (admin); a harvest starts"
)
async def create_connection(
    body: ConnectionCreate, session: SessionDep, access: SpaceDep, runtime: RuntimeDep, response: Response
) -> ConnectionOut:
    spec = ConnectionSpec(
        name=body.name,
        url=body.url,
        transport=body.transport,
        server=body.server,
        tool_prefix=body.tool_prefix,
        auth=_auth(body.auth),
    )
    connection = await mcp_connection_service.create(session, access, runtime.mcp, spec)
    response.headers["Location"] = f"/api/v1/spaces/{access.space_id}/mcp/connections/{connection.id}"
    return _out(connection)


@router.get("", summary="The space's MCP connections")
async def list_connections(session: SessionDep, access: SpaceDep, page: PageDep) -> PageOut[ConnectionOut]:
    result = await mcp_connection_service.list(session, access, limit=page.limit, cursor=page.cursor)
    return PageOut(items=[_out(c) for c in result.items], next_cursor=result.next_cursor)


@router.get("/{connection_id}", summary="One MCP connection and how its last harvest went")
async def get_connection(connection_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> ConnectionOut:
    return _out(await mcp_connection_service.get(session, access, connection_id))


@router.patch("/{connection_id}", summary="Change an MCP connection (admin)")
async def patch_connection(
    connection_id: uuid.UUID,
    body: ConnectionPatch,
    session: SessionDep,
    access: SpaceDep,
    runtime: RuntimeDep,
) -> ConnectionOut:
    spec = ConnectionSpec(
        name=body.name, url=body.url, server=body.server, tool_prefix=body.tool_prefix, auth=_auth(body.auth)
    )
    return _out(await mcp_connection_service.update(session, access, runtime.mcp, connection_id, spec))


@router.delete("/{connection_id}", status_code=status.HTTP_204_NO_CONTENT, summary="Disconnect (admin)")
async def delete_connection(connection_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> Response:
    await mcp_connection_service.delete(session, access, connection_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/{connection_id}/harvest",
    status_code=status.HTTP_202_ACCEPTED,
    summary="List the tools again now (admin)",
)
async def harvest_connection(
    connection_id: uuid.UUID, session: SessionDep, access: SpaceDep
) -> ConnectionOut:
    return _out(await mcp_connection_service.harvest_now(session, access, connection_id))


@router.get("/{connection_id}/tools", summary="The connection's tools: schemas, risk, hash, drift")
async def list_tools(connection_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> list[ToolOut]:
    tools = await mcp_connection_service.tools(session, access, connection_id)
    return [ToolOut.model_validate(tool) for tool in tools]


@router.patch("/{connection_id}/tools/{name}", summary="Override a tool's risk (admin)")
async def patch_tool(
    connection_id: uuid.UUID, name: ToolName, body: ToolPatch, session: SessionDep, access: SpaceDep
) -> ToolOut:
    tool = await mcp_connection_service.set_risk(session, access, connection_id, name, body.risk)
    return ToolOut.model_validate(tool)


@router.post("/{connection_id}/tools/{name}/confirm", summary="Accept a drifted tool's new schemas (admin)")
async def confirm_tool(
    connection_id: uuid.UUID, name: ToolName, session: SessionDep, access: SpaceDep
) -> ToolOut:
    tool = await mcp_connection_service.confirm(session, access, connection_id, name)
    return ToolOut.model_validate(tool)


@router.post("/{connection_id}/authorize", summary="Start OAuth: the URL to send the user to (admin)")
async def authorize_connection(
    connection_id: uuid.UUID, session: SessionDep, access: SpaceDep, runtime: RuntimeDep
) -> AuthorizeOut:
    url = await mcp_oauth_service.authorize(session, access, runtime.mcp, connection_id)
    return AuthorizeOut(authorization_url=url)


@callback_router.get(
    "/callback",
    status_code=status.HTTP_303_SEE_OTHER,
    response_class=RedirectResponse,
    summary="Where the authorization server sends the user back: on to the web UI, which completes",
    description=(
        "Completes nothing itself: it sends the browser on (303) to the web UI's "
        f"`{UI_COMPLETION_PAGE}` page with the same `state`, `code`, `iss` and `error`, where the "
        "signed-in user's token completes the flow through `POST /api/v1/mcp/oauth/complete`. A "
        "callback without a state is refused (JSON, or a small page for a browser)."
    ),
)
async def oauth_callback(
    state: Annotated[str | None, Query(max_length=512)] = None,
    code: Annotated[str | None, Query(max_length=4096)] = None,
    iss: Annotated[str | None, Query(max_length=2048)] = None,
    error: Annotated[str | None, Query(max_length=200)] = None,
) -> RedirectResponse:
    handed = mcp_oauth_service.handoff(state=state, code=code, iss=iss, error=error)
    return RedirectResponse(
        f"{UI_COMPLETION_PAGE}?{urlencode(handed)}",
        status_code=status.HTTP_303_SEE_OTHER,
        headers={"Cache-Control": "no-store"},
    )


@completion_router.post(
    "/complete",
    summary="Complete an OAuth authorization you started (the web UI calls it from the callback)",
    description=(
        "Only the user who started the authorization (`POST …/authorize`) can complete it, and only "
        "within 10 minutes of starting it: anyone else is refused with 403 "
        "`oauth_started_by_another_user`, a late completion with 409 `oauth_state_expired`; either "
        "ends the flow, so its code can never be exchanged. The starter must still be an admin of the "
        "connection's space."
    ),
)
async def complete_oauth(
    body: CompletionBody, session: SessionDep, caller: CallerDep, runtime: RuntimeDep
) -> CallbackOut:
    try:
        connection = await mcp_oauth_service.complete(
            session, runtime.mcp, caller, state=body.state, code=body.code, iss=body.iss, error=body.error
        )
    except AuthorizationEnded as ended:
        # The ended flow must stay ended: commit it, then refuse (an error would roll it back).
        await session.commit()
        raise ended.error from None
    return CallbackOut(
        connection_id=connection.id,
        space_id=connection.space_id,
        authorized=not connection.needs_authorization,
    )
