"""The MCP capability source: a space's harvested tools as capabilities, with lazily built handlers.

Each worker (and the API) asks the database what a space can call, so a tool harvested after the process
started resolves at once. Capabilities and their handler closures are built once per
(space, capability, schema hash, risk and flags) and cached; a closure holds only ids (connection and
tool name). Each call reads the connection and decrypts its credential. Over plain HTTP the call goes
to the process's open session for that space, connection and endpoint (`McpSessionPool`): the key holds
a keyed digest of the URL and headers, so an edited connection or a rotated credential opens a new
session and the old one closes when idle. OAuth and stdio connections open a session per call, and
their credentials leave memory with it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import unicodedata
import uuid
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from app.definitions.signals import StepError
from app.engine.secret_refs import scrub
from app.integrations.mcp.client import Endpoint, HttpEndpoint, ToolAnswer, connect
from app.integrations.mcp.errors import McpAuthorizationRequired, McpError
from app.integrations.mcp.oauth import StoredOAuth
from app.integrations.mcp.pool import McpSessionPool
from app.lru import LruCache
from app.persistence.models import McpTool
from app.persistence.repositories.mcp import McpConnectionRepository, McpToolRepository
from app.persistence.shared_reads import read_session
from app.persistence.types import AsyncSession, async_sessionmaker
from app.registry import Capability, Handler, HandlerContext, SecretFields
from app.services.mcp.endpoints import McpSettings, endpoint_for, read_oauth, seal_oauth

MAX_RESULT_BYTES = 256 * 1024
MAX_ERROR_TEXT = 1000
CACHE_SIZE = 4096
_CONTROL = re.compile(r"\s+")


def sanitise(text: str, limit: int = MAX_ERROR_TEXT) -> str:
    """A server's text made safe to store and show: no control characters, one line, bounded."""
    kept = "".join(" " if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c for c in text)
    kept = _CONTROL.sub(" ", kept).strip()
    return kept if len(kept) <= limit else kept[: limit - 1] + "…"


def result_of(tool: str, answer: ToolAnswer) -> Any:
    """The step's result: structured content when present, else the content blocks; `isError` fails."""
    if answer.is_error:
        text = " ".join(str(block.get("text", "")) for block in answer.content if block.get("type") == "text")
        raise StepError(
            "mcp_tool_error", f"{tool}: {sanitise(text) or 'the tool reported an error'}", retryable=False
        )
    result = answer.structured if answer.structured is not None else answer.content
    size = len(json.dumps(result, ensure_ascii=False, default=str).encode("utf-8"))
    if size > MAX_RESULT_BYTES:
        raise StepError(
            "mcp_result_too_large",
            f"{tool} answered {size} bytes; at most {MAX_RESULT_BYTES} are accepted",
            retryable=False,
        )
    return result


# How much longer than its step a tool call may last (see `McpInvoker.handler`).
SESSION_GRACE_SECONDS = 1.0


def _step_error(exc: McpError) -> StepError:
    return StepError(exc.code, exc.message, retryable=exc.retryable)


# Keys the endpoint digests of this process: a pool key never holds something a credential can be
# guessed back from.
_FINGERPRINT_KEY = secrets.token_bytes(32)


def endpoint_fingerprint(endpoint: HttpEndpoint) -> bytes:
    """A keyed digest of everything a session is opened with (URL, header names and values)."""
    parts = [endpoint.url, *(f"{name.lower()}\n{value}" for name, value in sorted(endpoint.headers.items()))]
    return hmac.digest(_FINGERPRINT_KEY, "\0".join(parts).encode("utf-8"), hashlib.sha256)


class McpInvoker:
    """Calls a tool of a connection for a step: credentials read per call; over plain HTTP, in the
    session this process keeps open for that space, connection and endpoint."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], settings: McpSettings, pool: McpSessionPool
    ) -> None:
        self.sessions = sessions
        self.settings = settings
        self.pool = pool

    def handler(self, connection_id: uuid.UUID, tool_name: str) -> Handler:
        """A handler for one tool; it holds only the connection id and the tool's name."""

        async def call_mcp_tool(ctx: HandlerContext, args: dict[str, Any]) -> Any:
            # The step's own timeout ends a slow call (`step_timeout`); the call's bound only keeps it
            # from outliving its step. Equal bounds would race, and a late event loop would let the
            # call's win and report the server as unreachable.
            return await self.call(
                uuid.UUID(ctx.space_id),
                connection_id,
                tool_name,
                args,
                ctx.timeout_seconds + SESSION_GRACE_SECONDS,
            )

        return call_mcp_tool

    async def call(
        self,
        space_id: uuid.UUID,
        connection_id: uuid.UUID,
        tool_name: str,
        args: dict[str, Any],
        timeout_seconds: float,
    ) -> Any:
        """One call of `tool_name` with `args` (secret references already resolved by the pipeline)."""
        async with self.sessions() as session:
            connection = await McpConnectionRepository(session).get(space_id, connection_id)
            if connection is None:
                raise StepError("unknown_capability", "the MCP connection was deleted", retryable=False)
            try:
                oauth = (
                    read_oauth(connection, self.settings.keyring) if connection.auth_type == "oauth" else None
                )
                endpoint = await endpoint_for(session, connection, self.settings, oauth)
            except McpError as exc:
                if isinstance(exc, McpAuthorizationRequired):
                    await self._needs_authorization(connection_id)
                raise _step_error(exc) from None
        credentials = list(endpoint.credentials) if isinstance(endpoint, HttpEndpoint) else []
        try:
            answer = await self._answer(space_id, connection_id, endpoint, tool_name, args, timeout_seconds)
            # A server may echo the credential back: nothing of it reaches a record.
            return scrub(result_of(tool_name, answer), credentials)
        except McpError as exc:
            if isinstance(exc, McpAuthorizationRequired):
                await self._needs_authorization(connection_id)
            raise StepError(exc.code, scrub(exc.message, credentials), retryable=exc.retryable) from None
        except StepError as exc:
            raise StepError(exc.code, scrub(exc.message, credentials), retryable=exc.retryable) from None
        finally:
            # The credential leaves memory with the call; tokens refreshed during it are kept, sealed.
            del endpoint
            credentials.clear()
            if oauth is not None and oauth.changed:
                await self._save_oauth(connection_id, oauth)

    async def _answer(
        self,
        space_id: uuid.UUID,
        connection_id: uuid.UUID,
        endpoint: Endpoint,
        tool_name: str,
        args: dict[str, Any],
        timeout_seconds: float,
    ) -> ToolAnswer:
        if isinstance(endpoint, HttpEndpoint) and endpoint.auth is None and self.pool.idle_seconds > 0:
            key = (space_id, connection_id, endpoint_fingerprint(endpoint))
            return await self.pool.call_tool(key, endpoint, tool_name, args, timeout_seconds)
        # OAuth refreshes its tokens inside the session and they are sealed again after the call, and a
        # stdio server is a child process: both keep a session per call.
        async with connect(
            endpoint,
            allow=self.settings.allow,
            timeout_seconds=timeout_seconds,
            resolver=self.settings.resolver,
        ) as mcp:
            return await mcp.call_tool(tool_name, args, timeout_seconds)

    async def _save_oauth(self, connection_id: uuid.UUID, oauth: StoredOAuth) -> None:
        async with self.sessions.begin() as session:
            connection = await McpConnectionRepository(session).get_any(connection_id, lock=True)
            if connection is not None and connection.auth_type == "oauth":
                seal_oauth(connection, self.settings.keyring, oauth)

    async def _needs_authorization(self, connection_id: uuid.UUID) -> None:
        async with self.sessions.begin() as session:
            connection = await McpConnectionRepository(session).get_any(connection_id, lock=True)
            if connection is not None and connection.auth_type == "oauth":
                connection.needs_authorization = True


class McpCapabilitySource:
    """`CapabilitySource` over the `mcp_tools` table: a space sees only its own callable tools."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], invoker: McpInvoker) -> None:
        self.sessions = sessions
        self.invoker = invoker
        self._cache: LruCache[tuple[Any, ...], Capability] = LruCache(CACHE_SIZE)

    async def capabilities(self, space_id: str | None) -> Sequence[Capability]:
        space = _space(space_id)
        if space is None:
            return []
        async with read_session(self.sessions) as session:
            rows = await McpToolRepository(session).callable_in_space(space)
        return [self._capability(row, url) for row, url in rows]

    async def get(self, space_id: str | None, capability_id: str) -> Capability | None:
        space = _space(space_id)
        if space is None:
            return None
        async with read_session(self.sessions) as session:
            found = await McpToolRepository(session).callable_by_capability(space, capability_id)
        return None if found is None else self._capability(*found)

    def _capability(self, row: McpTool, url: str | None) -> Capability:
        key = (
            row.space_id,
            row.capability_id,
            row.schema_hash,
            row.risk,
            row.drifted,
            row.destructive,
            row.connection_id,
            row.name,
            row.description,
            url,
        )
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        capability = Capability(
            id=row.capability_id,
            description=row.description.strip() or f"The MCP tool {row.name}.",
            input_schema=row.input_schema,
            output_schema=row.output_schema or {},
            handler=self.invoker.handler(row.connection_id, row.name),
            risk="read" if row.risk == "read" else "write",
            tier="mcp",
            destructive=row.destructive,
            drifted=row.drifted,
            secret_fields=mcp_secret_fields(url),
        )
        return self._cache.put(key, capability)


def mcp_secret_fields(url: str | None) -> SecretFields:
    """Every argument of an MCP tool goes to its connection's server: any may hold a secret, sent to
    that server's host (over HTTP, through the egress guard) or to a local process (stdio)."""
    if url is None:
        return SecretFields(paths=("/**",), guarded=False)
    host = _host(url)
    return SecretFields(paths=("/**",), host=lambda _args: host)


def _host(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def _space(space_id: str | None) -> uuid.UUID | None:
    if space_id is None:
        return None
    try:
        return uuid.UUID(space_id)
    except ValueError:
        return None
