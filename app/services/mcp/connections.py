"""MCP connections of a space: create, read, change, delete, re-harvest; and their tools' admin knobs.

Admins (and owners) manage connections; members read them. A URL is checked by the egress guard when it
is saved (and again at every connect, by the client itself); a stdio server is only ever one the operator
declared. Saving a connection asks for a harvest on the `system` queue once the transaction commits.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from app.errors import Conflict, ErrorDetail, NotFound, ValidationFailed
from app.persistence.models import McpConnection, McpTool
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.mcp import McpConnectionRepository, McpToolRepository
from app.persistence.repositories.secrets import SecretRepository
from app.persistence.types import AsyncSession
from app.registry import capabilities as native_capabilities
from app.security.egress import EgressDenied, check_url
from app.services.identity.access import Permissions, SpaceAccess
from app.services.mcp.endpoints import McpSettings
from app.services.mcp.harvest import request_harvest
from app.services.mcp.tools import prefix_problem
from app.services.resources.secrets import check_name as check_secret_name

AuthType = Literal["none", "bearer", "header", "oauth"]
_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$")
# Headers the MCP transport itself sets: a credential may not replace them.
_RESERVED_HEADERS = frozenset({"host", "content-type", "content-length", "accept", "mcp-session-id"})


@dataclass(frozen=True)
class AuthSpec:
    type: AuthType = "none"
    secret: str | None = None
    header: str | None = None


@dataclass(frozen=True)
class ConnectionSpec:
    """What a user asks for; `None` fields of a change keep their value."""

    name: str | None = None
    url: str | None = None
    transport: Literal["http", "stdio"] | None = None
    server: str | None = None
    tool_prefix: str | None = None
    auth: AuthSpec | None = None


def _invalid(path: str, message: str, code: str) -> ValidationFailed:
    return ValidationFailed(message, code=code, details=[ErrorDetail(path=path, message=message)])


class McpConnectionService:
    async def create(
        self, session: AsyncSession, access: SpaceAccess, settings: McpSettings, spec: ConnectionSpec
    ) -> McpConnection:
        """Create a connection (admin) and ask for its first harvest."""
        access.require(Permissions.manage_space)
        transport = spec.transport or "http"
        connection = McpConnection(
            id=uuid.uuid4(),
            space_id=access.space_id,
            transport=transport,
            auth_type="none",
            harvest_status="pending",
            needs_authorization=False,
            tool_count=0,
            tools_truncated=False,
            created_by=access.user_id,
        )
        if spec.name is None:
            raise _invalid("/name", "a connection needs a name", "invalid_connection")
        if spec.tool_prefix is None:
            raise _invalid("/tool_prefix", "a connection needs a tool_prefix", "invalid_connection")
        await self._apply(session, access, settings, connection, spec, creating=True)
        session.add(connection)
        await session.flush()
        request_harvest(connection, datetime.now(UTC))
        return connection

    async def update(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        settings: McpSettings,
        connection_id: uuid.UUID,
        spec: ConnectionSpec,
    ) -> McpConnection:
        """Change a connection (admin); a new address, prefix or credential asks for a new harvest."""
        access.require(Permissions.manage_space)
        connection = await self.get(session, access, connection_id)
        before = (connection.url, connection.tool_prefix, connection.auth_type, connection.auth_secret)
        await self._apply(session, access, settings, connection, spec, creating=False)
        await session.flush()
        if (connection.url, connection.tool_prefix, connection.auth_type, connection.auth_secret) != before:
            connection.harvest_status = "pending"
            request_harvest(connection, datetime.now(UTC))
        return connection

    async def _apply(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        settings: McpSettings,
        connection: McpConnection,
        spec: ConnectionSpec,
        *,
        creating: bool,
    ) -> None:
        repository = McpConnectionRepository(session)
        if spec.transport is not None and not creating and spec.transport != connection.transport:
            raise _invalid("/transport", "the transport of a connection cannot change", "invalid_connection")
        if spec.name is not None:
            name = spec.name.strip()
            if not name or len(name) > 100:
                raise _invalid("/name", "a name is 1 to 100 characters", "invalid_connection")
            other = await repository.named(access.space_id, name)
            if other is not None and other.id != connection.id:
                raise Conflict(
                    f"This space already has a connection named {name!r}.", code="connection_exists"
                )
            connection.name = name
        if spec.tool_prefix is not None:
            problem = prefix_problem(spec.tool_prefix)
            if problem is None and spec.tool_prefix in {c.id.split(".", 1)[0] for c in native_capabilities}:
                problem = (
                    f"{spec.tool_prefix!r} is the first segment of built-in capabilities; choose another"
                )
            if problem is not None:
                raise _invalid("/tool_prefix", problem, "invalid_tool_prefix")
            other = await repository.with_prefix(access.space_id, spec.tool_prefix)
            if other is not None and other.id != connection.id:
                raise Conflict(
                    f"The connection {other.name!r} already uses the prefix {spec.tool_prefix!r}.",
                    code="tool_prefix_taken",
                )
            connection.tool_prefix = spec.tool_prefix
        if connection.transport == "stdio":
            await self._stdio(connection, spec, settings, creating=creating)
        else:
            await self._http(connection, spec, settings, creating=creating)
        if spec.auth is not None:
            await self._auth(session, access, connection, spec.auth)

    async def _stdio(
        self, connection: McpConnection, spec: ConnectionSpec, settings: McpSettings, *, creating: bool
    ) -> None:
        if spec.url is not None:
            raise _invalid("/url", "a stdio connection has no URL", "invalid_connection")
        if spec.auth is not None and spec.auth.type != "none":
            raise _invalid("/auth/type", "a stdio connection takes no auth", "invalid_connection")
        if spec.server is None:
            if creating:
                raise _invalid(
                    "/server", "a stdio connection names an operator-declared server", "invalid_connection"
                )
            return
        if spec.server not in settings.stdio_servers:
            declared = ", ".join(sorted(settings.stdio_servers)) or "none"
            raise _invalid(
                "/server",
                f"no stdio server named {spec.server!r} is configured (declared: {declared})",
                "unknown_stdio_server",
            )
        connection.stdio_server = spec.server

    async def _http(
        self, connection: McpConnection, spec: ConnectionSpec, settings: McpSettings, *, creating: bool
    ) -> None:
        if spec.server is not None:
            raise _invalid("/server", "only a stdio connection names a server", "invalid_connection")
        if spec.url is None:
            if creating:
                raise _invalid("/url", "an HTTP connection needs a url", "invalid_url")
            return
        try:
            await asyncio.to_thread(check_url, spec.url, allow=settings.allow, resolver=settings.resolver)
        except EgressDenied as exc:
            raise _invalid("/url", f"the URL is refused: {exc.reason}", "egress_denied") from None
        connection.url = spec.url

    async def _auth(
        self, session: AsyncSession, access: SpaceAccess, connection: McpConnection, auth: AuthSpec
    ) -> None:
        if auth.type in ("bearer", "header"):
            if auth.secret is None:
                raise _invalid("/auth/secret", f"{auth.type} auth names a secret", "invalid_auth")
            try:
                check_secret_name(auth.secret)
            except ValidationFailed:
                raise _invalid("/auth/secret", "not a secret name", "invalid_auth") from None
            missing = await _secret_missing(session, access.space_id, auth.secret)
            if missing:
                raise _invalid(
                    "/auth/secret", f"this space has no secret named {auth.secret!r}", "secret_not_found"
                )
        if auth.type == "header":
            header = auth.header or ""
            if not _HEADER_NAME.fullmatch(header) or header.lower() in _RESERVED_HEADERS:
                raise _invalid(
                    "/auth/header", "a header name (not one the transport sets itself)", "invalid_auth"
                )
        elif auth.header is not None:
            raise _invalid("/auth/header", "only header auth names a header", "invalid_auth")
        if auth.type in ("none", "oauth") and auth.secret is not None:
            raise _invalid("/auth/secret", f"{auth.type} auth takes no secret", "invalid_auth")
        if auth.type != connection.auth_type or auth.type != "oauth":
            connection.oauth_ciphertext = None
            connection.oauth_state_hash = None
        connection.auth_type = auth.type
        connection.auth_secret = auth.secret
        connection.auth_header = auth.header
        connection.needs_authorization = auth.type == "oauth" and connection.oauth_ciphertext is None

    async def list(
        self, session: AsyncSession, access: SpaceAccess, *, limit: int, cursor: str | None
    ) -> Page[McpConnection]:
        access.require(Permissions.read)
        return await paginate(
            session,
            McpConnectionRepository(session).space_statement(access.space_id),
            order_by=[McpConnection.name],
            limit=limit,
            cursor=cursor,
            descending=False,
        )

    async def get(
        self, session: AsyncSession, access: SpaceAccess, connection_id: uuid.UUID
    ) -> McpConnection:
        """One connection of the space; another space's id is not found."""
        access.require(Permissions.read)
        connection = await McpConnectionRepository(session).get(access.space_id, connection_id)
        if connection is None:
            raise NotFound("This space has no such MCP connection.", code="connection_not_found")
        return connection

    async def delete(self, session: AsyncSession, access: SpaceAccess, connection_id: uuid.UUID) -> None:
        """Delete a connection and its tools (admin): their capabilities stop resolving at once."""
        access.require(Permissions.manage_space)
        connection = await self.get(session, access, connection_id)
        await session.delete(connection)
        await session.flush()

    async def harvest_now(
        self, session: AsyncSession, access: SpaceAccess, connection_id: uuid.UUID
    ) -> McpConnection:
        """Ask for a harvest now (admin)."""
        access.require(Permissions.manage_space)
        connection = await self.get(session, access, connection_id)
        connection.harvest_status = "pending"
        request_harvest(connection, datetime.now(UTC))
        await session.flush()
        return connection

    async def tools(
        self, session: AsyncSession, access: SpaceAccess, connection_id: uuid.UUID
    ) -> Sequence[McpTool]:
        connection = await self.get(session, access, connection_id)
        return await McpToolRepository(session).of_connection(connection.id)

    async def tool(
        self, session: AsyncSession, access: SpaceAccess, connection_id: uuid.UUID, name: str
    ) -> McpTool:
        connection = await self.get(session, access, connection_id)
        tool = await McpToolRepository(session).named(connection.id, name)
        if tool is None:
            raise NotFound(f"This connection has no tool named {name!r}.", code="tool_not_found")
        return tool

    async def set_risk(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        connection_id: uuid.UUID,
        name: str,
        risk: str | None,
    ) -> McpTool:
        """Override a tool's risk (admin); `None` goes back to the server's hint."""
        access.require(Permissions.manage_space)
        tool = await self.tool(session, access, connection_id, name)
        tool.risk_override = risk
        await session.flush()
        return tool

    async def confirm(
        self, session: AsyncSession, access: SpaceAccess, connection_id: uuid.UUID, name: str
    ) -> McpTool:
        """Accept a tool's current schemas and annotations (admin): its hash is confirmed, drift cleared."""
        access.require(Permissions.manage_space)
        tool = await self.tool(session, access, connection_id, name)
        tool.confirmed_hash = tool.schema_hash
        tool.drifted = False
        await session.flush()
        return tool

    async def names(self, session: AsyncSession, space_id: uuid.UUID) -> Sequence[str]:
        """The names of the space's connections (what authoring may mention)."""
        return await McpConnectionRepository(session).names(space_id)


async def _secret_missing(session: AsyncSession, space_id: uuid.UUID, name: str) -> bool:
    """Whether the space lacks the secret a connection names (never reads its value)."""
    return name not in await SecretRepository(session).existing_names(space_id, [name])


mcp_connection_service = McpConnectionService()
