"""Authorizing an OAuth connection: the URL to send the user to, and the callback that stores tokens.

The callback is reached by the user's browser coming back from the authorization server, without our
API token: it finds the connection by the (hashed, single-use, short-lived) state alone.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import BadRequest, Conflict, NotFound
from app.integrations.mcp.errors import McpError
from app.integrations.mcp.oauth import complete_authorization, start_authorization
from app.persistence.models import McpConnection
from app.persistence.repositories.mcp import McpConnectionRepository
from app.services.access import Permissions, SpaceAccess
from app.services.mcp.connections import mcp_connection_service
from app.services.mcp.endpoints import McpSettings, read_oauth, seal_oauth
from app.services.mcp.harvest import request_harvest

AUTHORIZATION_TTL = timedelta(minutes=15)


def state_hash(state: str) -> str:
    return hashlib.sha256(state.encode("utf-8")).hexdigest()


class McpOAuthService:
    async def authorize(
        self, session: AsyncSession, access: SpaceAccess, settings: McpSettings, connection_id: uuid.UUID
    ) -> str:
        """Discover the authorization server, register when offered, and answer the URL for the user."""
        access.require(Permissions.manage_space)
        connection = await mcp_connection_service.get(session, access, connection_id)
        if connection.auth_type != "oauth" or connection.url is None:
            raise Conflict("This connection does not use OAuth.", code="not_oauth")
        store = read_oauth(connection, settings.keyring)
        try:
            url = await start_authorization(
                connection.url,
                settings.redirect_uri,
                store,
                allow=settings.allow,
                timeout_seconds=settings.timeout_seconds,
                resolver=settings.resolver,
            )
        except McpError as exc:
            raise Conflict(f"The authorization could not start: {exc.message}", code=exc.code) from None
        if url is None:
            raise Conflict(
                "The server answered without asking for authorization.", code="authorization_not_required"
            )
        assert store.state.pending_state is not None
        seal_oauth(connection, settings.keyring, store)
        connection.oauth_state_hash = state_hash(store.state.pending_state)
        connection.oauth_started_at = datetime.now(UTC)
        connection.needs_authorization = True
        await session.flush()
        return url

    async def callback(
        self,
        session: AsyncSession,
        settings: McpSettings,
        *,
        state: str | None,
        code: str | None,
        iss: str | None,
        error: str | None,
    ) -> McpConnection:
        """Store the tokens of an authorization the user just granted, and harvest with them."""
        if not state:
            raise BadRequest("The callback carries no state.", code="oauth_state_missing")
        connection = await McpConnectionRepository(session).by_state_hash(state_hash(state))
        if connection is None or connection.url is None:
            raise NotFound("No authorization is waiting for this state.", code="oauth_state_unknown")
        started = connection.oauth_started_at or datetime.min.replace(tzinfo=UTC)
        connection.oauth_state_hash = None
        if datetime.now(UTC) - started > AUTHORIZATION_TTL:
            raise Conflict("This authorization expired; start it again.", code="oauth_state_expired")
        if error or not code:
            connection.harvest_error = (
                f"mcp_needs_authorization: the user did not authorize ({error or 'no code'})"
            )
            return connection
        store = read_oauth(connection, settings.keyring)
        try:
            await complete_authorization(
                connection.url,
                settings.redirect_uri,
                store,
                code=code,
                iss=iss,
                allow=settings.allow,
                timeout_seconds=settings.timeout_seconds,
                resolver=settings.resolver,
            )
        except McpError as exc:
            seal_oauth(connection, settings.keyring, store)
            raise Conflict(f"The authorization failed: {exc.message}", code=exc.code) from None
        seal_oauth(connection, settings.keyring, store)
        connection.needs_authorization = False
        connection.harvest_status = "pending"
        request_harvest(connection, datetime.now(UTC))
        await session.flush()
        return connection


mcp_oauth_service = McpOAuthService()
