"""Live run changes from PostgreSQL: one LISTEN connection per API process, fanned out to subscribers.

The `runs_notify_change` trigger (migration c41d8e6b2f73) sends `{space_id, run_id, automation_id,
status, at}` on channel `run_changes` at the commit of every new run and status change, whichever
process made it (API, worker, beat). The hub listens on one dedicated connection, opened when the
first subscriber arrives, and hands each change to the subscribers of its space. A subscriber that
does not keep up loses its oldest changes rather than growing memory; the runs page re-reads a run
when it hears of it, so a lost change only delays one row until the next.

When PostgreSQL drops the listening connection (a restart, a failover, `pg_terminate_backend`) while
anyone listens, the hub listens again on a new connection, retrying with backoff, and then hands its
subscribers one change per run of their space created or whose status moved (`status_changed_at`)
since the connection last answered: what NOTIFY sent while nobody heard it is not lost. A connection
the network dropped without a word (no FIN, no RST: a failover, a NAT timeout) is found by a probe
every `probe_seconds` that gets no answer in time, and is treated the same way.

The same connection listens on `access_changes` (migration 5b8e2d7f4c19): a token revoked or its
expiry moved, a membership removed or changed, sent at commit from whichever process made it. The hub
flags the subscriptions of that token, or of that user in that space, and wakes them (a `None` in
their queue), so a stream re-checks its caller at once instead of at its next periodic check. After
listening again it flags every subscription with a caller: what it missed may have been one of these.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession

from app.persistence.base import utcnow
from app.persistence.repositories.runs import RunRepository

logger = logging.getLogger(__name__)

CHANNEL = "run_changes"
ACCESS_CHANNEL = "access_changes"
SUBSCRIBER_BUFFER = 256
# Notifications carry the database clock at the change, the drop is noticed a little later: look back.
REPLAY_MARGIN = timedelta(seconds=2)
REPLAY_LIMIT = 200
RECONNECT_DELAYS = (0.0, 0.5, 1.0, 2.0, 5.0)
PROBE_SECONDS = 30.0
PROBE_TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class RunChange:
    space_id: uuid.UUID
    run_id: uuid.UUID
    automation_id: uuid.UUID
    status: str
    at_ms: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": str(self.run_id),
            "automation_id": str(self.automation_id),
            "status": self.status,
            "at": self.at_ms,
        }


def parse_change(payload: str) -> RunChange | None:
    """A notification's payload as a change; None (and a warning) for anything malformed."""
    try:
        raw = json.loads(payload)
        return RunChange(
            space_id=uuid.UUID(raw["space_id"]),
            run_id=uuid.UUID(raw["run_id"]),
            automation_id=uuid.UUID(raw["automation_id"]),
            status=str(raw["status"]),
            at_ms=int(raw["at"]),
        )
    except (ValueError, KeyError, TypeError):
        logger.warning("ignoring a malformed %s notification", CHANNEL)
        return None


@dataclass(frozen=True)
class AccessChange:
    """A token (by id) or a membership (space and user) whose access may have ended."""

    token_id: uuid.UUID | None = None
    space_id: uuid.UUID | None = None
    user_id: uuid.UUID | None = None


def parse_access_change(payload: str) -> AccessChange | None:
    """An `access_changes` payload; None (and a warning) for anything malformed."""
    try:
        raw = json.loads(payload)
        if "token_id" in raw:
            return AccessChange(token_id=uuid.UUID(raw["token_id"]))
        return AccessChange(space_id=uuid.UUID(raw["space_id"]), user_id=uuid.UUID(raw["user_id"]))
    except (ValueError, KeyError, TypeError, AttributeError):
        logger.warning("ignoring a malformed %s notification", ACCESS_CHANNEL)
        return None


class Subscription(asyncio.Queue[RunChange | None]):
    """One stream's queue of its space's run changes. A `None` wakes the stream to re-check its
    caller; `access_changed` says so too, and stays set even if the queue dropped that `None`."""

    def __init__(self, space_id: uuid.UUID, token_id: uuid.UUID | None, user_id: uuid.UUID | None) -> None:
        super().__init__(maxsize=SUBSCRIBER_BUFFER)
        self.space_id = space_id
        self.token_id = token_id
        self.user_id = user_id
        self.access_changed = False

    def offer(self, item: RunChange | None) -> None:
        """Queue `item`, dropping the oldest when full: a slow reader never grows memory."""
        if self.full():
            self.get_nowait()
        self.put_nowait(item)

    def concerns(self, change: AccessChange) -> bool:
        """Whether `change` may end this subscription's caller's access."""
        if self.token_id is None:
            return False
        if change.token_id is not None:
            return change.token_id == self.token_id
        return change.space_id == self.space_id and change.user_id == self.user_id

    def flag_access(self) -> None:
        """Ask the stream to re-check its caller now."""
        if self.token_id is None:
            return
        self.access_changed = True
        self.offer(None)

    def take_access_changed(self) -> bool:
        """Whether a re-check was asked for since the last call (and clear the request)."""
        changed, self.access_changed = self.access_changed, False
        return changed


async def _dispose(connection: AsyncConnection) -> None:
    """Drop a connection the server closed or that failed to listen, so the pool never reuses it."""
    with contextlib.suppress(Exception):
        await connection.invalidate()
    with contextlib.suppress(Exception):
        await connection.close()


class RunEventHub:
    """Subscribers per space, fed by one LISTEN connection that lives while anyone listens."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        probe_seconds: float = PROBE_SECONDS,
        probe_timeout_seconds: float = PROBE_TIMEOUT_SECONDS,
    ) -> None:
        self.engine = engine
        self.probe_seconds = probe_seconds
        self.probe_timeout_seconds = probe_timeout_seconds
        self._watching: asyncio.Task[None] | None = None
        self._subscribers: dict[uuid.UUID, set[Subscription]] = {}
        self._connection: AsyncConnection | None = None
        self._driver: Any = None
        self._lock = asyncio.Lock()
        self._reconnecting: asyncio.Task[None] | None = None
        # The first drop not yet made up for by a replay, dated when the connection last answered.
        self._lost_at: datetime | None = None
        self._alive_at: datetime | None = None

    @property
    def listening(self) -> bool:
        """Whether the hub holds a live LISTEN connection now."""
        return self._driver is not None and not self._driver.is_closed()

    def _deliver(self, change: RunChange) -> None:
        for subscription in self._subscribers.get(change.space_id, ()):
            subscription.offer(change)

    def _on_access(self, _connection: Any, _pid: int, _channel: str, payload: str) -> None:
        change = parse_access_change(payload)
        if change is None:
            return
        # Revocations are rare and a process holds few streams: a scan costs less than an index.
        for subscriptions in self._subscribers.values():
            for subscription in subscriptions:
                if subscription.concerns(change):
                    subscription.flag_access()

    def _flag_everyone(self) -> None:
        for subscriptions in self._subscribers.values():
            for subscription in subscriptions:
                subscription.flag_access()

    def _on_notify(self, _connection: Any, _pid: int, _channel: str, payload: str) -> None:
        change = parse_change(payload)
        if change is not None:
            self._deliver(change)

    def _on_terminate(self, driver: Any) -> None:
        # asyncpg calls this when the connection ends, whoever ended it; a close of our own removes
        # the listener first, so this is the server (or the network) dropping it.
        if driver is not self._driver:
            return
        logger.warning("the %s listening connection was dropped; listening again", CHANNEL)
        self._driver = None
        if self._lost_at is None:
            self._lost_at = self._alive_at or utcnow()
        if self._subscribers and (self._reconnecting is None or self._reconnecting.done()):
            self._reconnecting = asyncio.get_running_loop().create_task(self._listen_again())

    async def _listen_again(self) -> None:
        """Listen on a new connection (with backoff while the server is away), then replay the gap.

        Repeats until it ends up listening: a drop during the replay starts over from the first drop."""
        attempt = 0
        while self._subscribers:
            await asyncio.sleep(RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)])
            attempt += 1
            try:
                await self._ensure_listening()
                if self._lost_at is not None:
                    await self._replay_since(self._lost_at - REPLAY_MARGIN)
            except Exception:
                # Whatever failed (the server still away, LISTEN refused), try again later: ending
                # this task would leave every open stream silently deaf.
                logger.warning("listening on %s failed (attempt %d)", CHANNEL, attempt, exc_info=True)
                continue
            if self.listening:
                self._lost_at = None
                self._flag_everyone()
                return

    async def _watch(self, driver: Any) -> None:
        """Probe the listening connection now and then; one that does not answer is ended, so the
        termination path above listens again."""
        while driver is self._driver:
            await asyncio.sleep(self.probe_seconds)
            if driver is not self._driver:
                return
            try:
                await asyncio.wait_for(driver.fetchval("SELECT 1"), self.probe_timeout_seconds)
                self._alive_at = utcnow()
            except Exception:
                if driver is self._driver:
                    logger.warning("the %s listening connection stopped answering", CHANNEL)
                    driver.terminate()
                return

    async def _replay_since(self, since: datetime) -> None:
        now_ms = int(utcnow().timestamp() * 1000)
        async with AsyncSession(self.engine) as session:
            repository = RunRepository(session)
            for space_id in list(self._subscribers):
                for run in reversed(await repository.changed_since(space_id, since, REPLAY_LIMIT)):
                    self._deliver(RunChange(space_id, run.id, run.automation_id, str(run.status), now_ms))

    async def _ensure_listening(self) -> None:
        async with self._lock:
            if self.listening:
                return
            stale, self._connection = self._connection, None
            if stale is not None:
                await _dispose(stale)
            connection = await self.engine.connect()
            try:
                raw = await connection.get_raw_connection()
                driver = raw.driver_connection
                assert driver is not None
                # Run changes last: the backend's `query` in pg_stat_activity then reads
                # `LISTEN "run_changes"`, by which operators (and tests) find the hub's connection.
                await driver.add_listener(ACCESS_CHANNEL, self._on_access)
                await driver.add_listener(CHANNEL, self._on_notify)
                driver.add_termination_listener(self._on_terminate)
            except BaseException:
                await _dispose(connection)
                raise
            self._connection, self._driver = connection, driver
            self._alive_at = utcnow()
            if self._watching is not None:
                self._watching.cancel()
            self._watching = asyncio.get_running_loop().create_task(self._watch(driver))

    async def _stop_if_idle(self) -> None:
        async with self._lock:
            if self._subscribers:
                return
            # Nobody to make a gap up to any more; a later subscriber starts from its own now.
            self._lost_at = None
            if self._connection is None:
                return
            connection, self._connection = self._connection, None
            driver, self._driver = self._driver, None
            watching, self._watching = self._watching, None
            if watching is not None:
                watching.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watching
            if driver is None:
                await _dispose(connection)
                return
            # Closing returns the connection to the pool; the listeners go first (UNLISTEN). One
            # that cannot say UNLISTEN (cut mid-probe, say) is not fit to go back.
            try:
                driver.remove_termination_listener(self._on_terminate)
                await driver.remove_listener(CHANNEL, self._on_notify)
                await driver.remove_listener(ACCESS_CHANNEL, self._on_access)
            except Exception:
                await _dispose(connection)
                return
            await connection.close()

    @contextlib.asynccontextmanager
    async def subscribe(
        self,
        space_id: uuid.UUID,
        *,
        token_id: uuid.UUID | None = None,
        user_id: uuid.UUID | None = None,
    ) -> AsyncIterator[Subscription]:
        """The space's run changes, from now until the block ends; with a caller (`token_id`,
        `user_id`), also a wake-up whenever that token's or that membership's access changes."""
        subscription = Subscription(space_id, token_id, user_id)
        self._subscribers.setdefault(space_id, set()).add(subscription)
        try:
            await self._ensure_listening()
            yield subscription
        finally:
            listeners = self._subscribers.get(space_id, set())
            listeners.discard(subscription)
            if not listeners:
                self._subscribers.pop(space_id, None)
            await self._stop_if_idle()

    async def close(self) -> None:
        """Stop listening (the application is shutting down)."""
        self._subscribers.clear()
        if self._reconnecting is not None:
            self._reconnecting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reconnecting
        await self._stop_if_idle()
