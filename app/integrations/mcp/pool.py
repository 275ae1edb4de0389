"""MCP sessions kept open between tool calls: at most one per key in this process, closed when idle.

Opening a streamable HTTP session (connect, initialise, close) costs an order of magnitude more than a
call inside an open one, so tool calls go through this pool. A session stays open while it is used and
closes after `idle_seconds` without a call; at most `size` are open (the least recently used one closes
first), and `aclose` closes them all when the process stops.

The SDK's client holds anyio task groups that the task which entered them must also leave, so each
session has an owner task: it opens the client, publishes it, and waits until the session is closed or
idle. Calls are sent from the caller's own task through the client (the SDK multiplexes concurrent
requests over the transport), each bounded by its own timeout.

Keys are chosen by the caller (see `McpInvoker`): a session is never used under another key. The HTTP
client of a session pins each host to the addresses the egress guard checked when it first connected
(`pin_hosts`), so a DNS change never moves an open session; a new session resolves and checks again.

A session found closed or idle is replaced before anything is sent. When the transport fails under a
call, the call is sent again on a new session only when the request cannot have reached the server:
the connection could not be made (and no other call shared the session meanwhile), or the server
answered that it no longer knows the session. Otherwise the call fails with a clear error, because the
tool may have run.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.integrations.mcp.client import HttpEndpoint, McpSession, ToolAnswer, failure, open_http
from app.integrations.mcp.errors import McpError, McpUnreachable, leaves
from app.lru import LruCache
from app.security.egress import EgressAllowList, Resolver

if TYPE_CHECKING:
    import httpx2
    from mcp.client import Client

# Each call is bounded by its caller; this only keeps one HTTP request of a session from lasting forever.
REQUEST_CEILING_SECONDS = 24 * 3600.0
# How long closing a session (ending its HTTP session at the server) may take before it is abandoned.
CLOSE_SECONDS = 5.0
# The last HTTP statuses a session got, enough to tell a refused credential behind a failure.
KEPT_STATUSES = 16

# What the call this context sends was answered: the SDK sends a call's request from a task that copies
# the sender's context, so the response hook finds the caller's list here.
_CALL_ANSWERS: contextvars.ContextVar[list[Answered] | None] = contextvars.ContextVar(
    "mcp_call_answers", default=None
)


@dataclass(frozen=True)
class Answered:
    """One HTTP response to a call's request, and whether that request named a session."""

    status: int
    in_session: bool


def _observe(response: httpx2.Response) -> None:
    answers = _CALL_ANSWERS.get()
    if answers is not None:
        answers.append(Answered(response.status_code, "mcp-session-id" in response.request.headers))


class PooledSession:
    """One open session and the task that owns it."""

    def __init__(
        self,
        endpoint: HttpEndpoint,
        *,
        allow: EgressAllowList | None,
        resolver: Resolver | None,
        idle_seconds: float,
    ) -> None:
        self.loop = asyncio.get_running_loop()
        self.idle_seconds = idle_seconds
        self.statuses: deque[int] = deque(maxlen=KEPT_STATUSES)
        self.failure: BaseException | None = None
        self.inflight = 0
        self.started = 0
        self.last_used = self.loop.time()
        self._client: Client | None = None
        self._closing = False
        self._wake = asyncio.Event()
        self.ready: asyncio.Future[None] = self.loop.create_future()
        self.task = self.loop.create_task(self._own(endpoint, allow, resolver))

    def usable(self) -> bool:
        """Open, not closing, and not idle past its time (a call may still be sent on it)."""
        if self.task.done() or self._closing:
            return False
        return self.inflight > 0 or self.loop.time() - self.last_used < self.idle_seconds

    def close(self) -> None:
        """Ask the owner to close the session once the calls in flight have ended."""
        self._closing = True
        if not self.loop.is_closed():  # a loop that is gone took its session with it
            self._wake.set()

    async def aclose(self) -> None:
        """Close the session and wait (a bounded time) for its owner to end."""
        self.close()
        await asyncio.wait({self.task}, timeout=CLOSE_SECONDS)
        if not self.task.done():
            self.task.cancel()

    async def _own(
        self, endpoint: HttpEndpoint, allow: EgressAllowList | None, resolver: Resolver | None
    ) -> None:
        try:
            async with open_http(
                endpoint,
                allow=allow,
                request_timeout_seconds=REQUEST_CEILING_SECONDS,
                resolver=resolver,
                statuses=self.statuses,
                pin_hosts=True,
                observe=_observe,
            ) as client:
                self._client = client
                self.ready.set_result(None)
                await self._serve()
        except (Exception, BaseExceptionGroup, asyncio.CancelledError) as exc:
            # The owner's end is the session's end: callers read why from `failure`.
            self.failure = exc
            if not self.ready.done():
                self.ready.set_exception(failure(exc, self.statuses))
        finally:
            self._client = None
            if not self.ready.done():
                self.ready.set_exception(McpUnreachable("the MCP session closed before it opened"))

    async def _serve(self) -> None:
        """Wait, without being cancelled (anyio scopes are entered in this task), until closed or idle."""
        while True:
            if self.inflight == 0:
                if self._closing:
                    return
                remaining = self.last_used + self.idle_seconds - self.loop.time()
                if remaining <= 0:
                    return
                timer: asyncio.TimerHandle | None = self.loop.call_later(remaining, self._wake.set)
            else:
                timer = None
            self._wake.clear()
            await self._wake.wait()
            if timer is not None:
                timer.cancel()

    def hold(self) -> None:
        """Keep the session open for a call about to be sent (taken before it has even opened)."""
        self.inflight += 1

    def release(self) -> None:
        """The call held for has ended: the idle time starts again."""
        self.inflight -= 1
        self.last_used = self.loop.time()
        self._wake.set()

    async def call_tool(self, name: str, arguments: dict[str, Any], timeout_seconds: float) -> ToolAnswer:
        """Send one tools/call on this open, held session; see `McpSessionPool.call_tool` for what a
        failure means."""
        client = self._client
        if client is None:
            raise _NotSent(McpUnreachable("the MCP session closed before the call was sent"))
        alone = self.inflight == 1
        self.started += 1
        ticket = self.started
        answers: list[Answered] = []
        token = _CALL_ANSWERS.set(answers)
        try:
            return await McpSession(client).call_tool(name, arguments, timeout_seconds)
        except (Exception, BaseExceptionGroup) as exc:
            alone = alone and self.started == ticket
            raise await self._diagnosed(exc, alone=alone, answers=answers) from None
        finally:
            _CALL_ANSWERS.reset(token)

    async def _diagnosed(self, exc: BaseException, *, alone: bool, answers: list[Answered]) -> McpError:
        """The call's error, wrapped in `_NotSent` when the request surely never reached the server.

        `answers` are the HTTP responses the call's own request got."""
        if isinstance(exc, McpError):
            return exc
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED

        answer = next((leaf for leaf in leaves(exc) if isinstance(leaf, MCPError)), None)
        if answer is not None and Answered(404, in_session=True) in answers:
            # A 404 to a request carrying a session id: the server no longer knows the session (it
            # restarted or expired it) and ran nothing; the protocol says to open a new one.
            return _NotSent(McpUnreachable("the MCP server no longer knows this session"))
        if answer is None or answer.error.code != CONNECTION_CLOSED:
            return failure(exc, self.statuses)
        # The transport died under the call: the owner holds the reason.
        await asyncio.wait({self.task}, timeout=CLOSE_SECONDS)
        cause = self.failure or exc
        if alone and _connection_refused(cause):
            return _NotSent(failure(cause, self.statuses))
        reason = failure(cause, self.statuses)
        if not isinstance(reason, McpUnreachable):
            return reason
        return McpUnreachable(
            "the connection to the MCP server broke during the call; it was not sent again because the "
            f"tool may have run ({reason.message})"
        )


class _NotSent(McpError):
    """A call that never reached the server: it may be sent again on a new session."""

    def __init__(self, error: McpError) -> None:
        super().__init__(error.message)
        self.error = error


def _connection_refused(exc: BaseException) -> bool:
    import httpx2

    return any(isinstance(leaf, httpx2.ConnectError | httpx2.ConnectTimeout) for leaf in leaves(exc))


class McpSessionPool:
    """This process's open MCP sessions, by key; not shared across event loops or processes."""

    def __init__(
        self,
        *,
        size: int,
        idle_seconds: float,
        allow: EgressAllowList | None,
        resolver: Resolver | None = None,
    ) -> None:
        self.idle_seconds = idle_seconds
        self.allow = allow
        self.resolver = resolver
        self._sessions: LruCache[Hashable, PooledSession] = LruCache(size, on_evict=PooledSession.close)

    def __len__(self) -> int:
        return len(self._sessions)

    def open_sessions(self) -> list[PooledSession]:
        """The sessions held now, least recently used first (tests and metrics look at them)."""
        return self._sessions.values()

    async def call_tool(
        self,
        key: Hashable,
        endpoint: HttpEndpoint,
        name: str,
        arguments: dict[str, Any],
        timeout_seconds: float,
    ) -> ToolAnswer:
        """Call a tool on the session of `key`, opening one from `endpoint` when there is none.

        `timeout_seconds` bounds the whole call, opening a session and one resend included. Every failure
        comes out as an `McpError`.
        """
        try:
            async with asyncio.timeout(timeout_seconds):
                for attempt in (1, 2):
                    session = self._session(key, endpoint)
                    session.hold()
                    try:
                        await self._opened(key, session)
                        return await session.call_tool(name, arguments, timeout_seconds)
                    except _NotSent as exc:
                        self._discard(key, session)
                        if attempt == 2:
                            raise exc.error from None
                    except McpError:
                        if session.task.done():
                            self._discard(key, session)
                        raise
                    finally:
                        session.release()
        except TimeoutError:
            raise McpError.timeout(timeout_seconds) from None
        raise AssertionError("unreachable: the second attempt returns or raises")

    def _session(self, key: Hashable, endpoint: HttpEndpoint) -> PooledSession:
        """The usable session of `key`, or a new one (opening in its own task)."""
        loop = asyncio.get_running_loop()
        session = self._sessions.get(key)
        if session is not None and (session.loop is not loop or not session.usable()):
            self._discard(key, session)
            session = None
        if session is None:
            session = PooledSession(
                endpoint, allow=self.allow, resolver=self.resolver, idle_seconds=self.idle_seconds
            )
            self._sessions.put(key, session)
        return session

    async def _opened(self, key: Hashable, session: PooledSession) -> None:
        try:
            # Shielded: a caller that gives up must not cancel the opening other callers wait for.
            await asyncio.shield(session.ready)
        except McpError:
            self._discard(key, session)
            raise

    def _discard(self, key: Hashable, session: PooledSession) -> None:
        if self._sessions.get(key) is session:
            self._sessions.pop(key)
        if session.loop is asyncio.get_running_loop():
            session.close()

    async def aclose(self) -> None:
        """Close every session of this loop (process shutdown); sessions of a loop now gone are dropped."""
        sessions = self._sessions.values()
        self._sessions.clear()
        loop = asyncio.get_running_loop()
        ours = [session for session in sessions if session.loop is loop]
        with contextlib.suppress(Exception):
            await asyncio.gather(*(session.aclose() for session in ours), return_exceptions=True)
