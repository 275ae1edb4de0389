"""Authorizing an OAuth connection: the URL to send the user to, and the completion that stores tokens.

The flow belongs to the user who started it. The authorization server sends the browser back to the
callback route, which only hands the code and state to the web UI; the UI completes the flow with the
signed-in user's own token, and the completion refuses anyone but the starter. Otherwise an admin could
send their authorization URL to someone else and collect that person's grant in the admin's space.
The state is random, stored hashed, single use and valid `AUTHORIZATION_TTL`.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime, timedelta

from app.errors import AppError, BadRequest, Conflict, Forbidden, NotFound
from app.integrations.mcp.errors import McpError
from app.integrations.mcp.oauth import complete_authorization, start_authorization
from app.persistence.models import McpConnection
from app.persistence.repositories.mcp import McpConnectionRepository
from app.persistence.types import AsyncSession
from app.services.identity.access import Caller, Permissions, SpaceAccess
from app.services.identity.auth import auth_service
from app.services.mcp.connections import mcp_connection_service
from app.services.mcp.endpoints import McpSettings, read_oauth, seal_oauth
from app.services.mcp.harvest import request_harvest

AUTHORIZATION_TTL = timedelta(minutes=10)


def state_hash(state: str) -> str:
    return hashlib.sha256(state.encode("utf-8")).hexdigest()


class AuthorizationEnded(Exception):
    """The completion was refused and the flow ended with it (its state cleared): the caller commits
    that, then answers `error`. A refused flow stays refused, so a code that reached the wrong browser
    can never be exchanged later."""

    def __init__(self, error: AppError) -> None:
        super().__init__(error.message)
        self.error = error


def _end(connection: McpConnection) -> None:
    connection.oauth_state_hash = None
    connection.oauth_started_by = None


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
        connection.oauth_started_by = access.user_id
        connection.needs_authorization = True
        await session.flush()
        return url

    def handoff(
        self, *, state: str | None, code: str | None, iss: str | None, error: str | None
    ) -> dict[str, str]:
        """What the callback hands on to the web UI, which completes the flow as the signed-in user.

        Nothing is looked up or stored here: the browser that lands on the callback may not be the
        starter's."""
        if not state:
            raise BadRequest("The callback carries no state.", code="oauth_state_missing")
        given = {"state": state, "code": code, "iss": iss, "error": error}
        return {name: value for name, value in given.items() if value is not None}

    async def complete(
        self,
        session: AsyncSession,
        settings: McpSettings,
        caller: Caller,
        *,
        state: str,
        code: str | None,
        iss: str | None,
        error: str | None,
    ) -> McpConnection:
        """Store the tokens of an authorization the starter just granted, and harvest with them.

        Raises `AuthorizationEnded` when someone else, or too late, tries to complete it."""
        connection = await McpConnectionRepository(session).by_state_hash(state_hash(state))
        if connection is None or connection.url is None:
            raise NotFound("No authorization is waiting for this state.", code="oauth_state_unknown")
        if connection.oauth_started_by != caller.user_id:
            _end(connection)
            raise AuthorizationEnded(
                Forbidden(
                    "Another user started this authorization; only they can complete it, signed in "
                    "to this service. It has been cancelled: start it again from the Connections page.",
                    code="oauth_started_by_another_user",
                )
            )
        started = connection.oauth_started_at or datetime.min.replace(tzinfo=UTC)
        if datetime.now(UTC) - started > AUTHORIZATION_TTL:
            _end(connection)
            minutes = int(AUTHORIZATION_TTL.total_seconds() // 60)
            raise AuthorizationEnded(
                Conflict(
                    f"This authorization expired (it must be completed within {minutes} minutes); "
                    "start it again.",
                    code="oauth_state_expired",
                )
            )
        # Still an admin of the connection's space (a removed or demoted starter cannot finish).
        access = await auth_service.space_access(session, caller, connection.space_id)
        access.require(Permissions.manage_space)
        _end(connection)
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
