"""Live run changes from PostgreSQL: one LISTEN connection per API process, fanned out to subscribers.

The `runs_notify_change` trigger (migration c41d8e6b2f73) sends `{space_id, run_id, automation_id,
status, at}` on channel `run_changes` at the commit of every new run and status change, whichever
process made it (API, worker, beat). The hub listens on one dedicated connection, opened when the
first subscriber arrives, and hands each change to the subscribers of its space. A subscriber that
does not keep up loses its oldest changes rather than growing memory; the runs page re-reads a run
when it hears of it, so a lost change only delays one row until the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

logger = logging.getLogger(__name__)

CHANNEL = "run_changes"
SUBSCRIBER_BUFFER = 256


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


class RunEventHub:
    """Subscribers per space, fed by one LISTEN connection that lives while anyone listens."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._subscribers: dict[uuid.UUID, set[asyncio.Queue[RunChange]]] = {}
        self._connection: AsyncConnection | None = None
        self._lock = asyncio.Lock()

    def _deliver(self, change: RunChange) -> None:
        for queue in self._subscribers.get(change.space_id, ()):
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(change)

    def _on_notify(self, _connection: Any, _pid: int, _channel: str, payload: str) -> None:
        change = parse_change(payload)
        if change is not None:
            self._deliver(change)

    async def _ensure_listening(self) -> None:
        async with self._lock:
            if self._connection is not None and not self._connection.closed:
                return
            connection = await self.engine.connect()
            raw = await connection.get_raw_connection()
            assert raw.driver_connection is not None
            await raw.driver_connection.add_listener(CHANNEL, self._on_notify)
            self._connection = connection

    async def _stop_if_idle(self) -> None:
        async with self._lock:
            if self._subscribers or self._connection is None:
                return
            connection, self._connection = self._connection, None
            # Closing returns the connection to the pool, which resets it (and its LISTEN).
            with contextlib.suppress(Exception):
                raw = await connection.get_raw_connection()
                assert raw.driver_connection is not None
                await raw.driver_connection.remove_listener(CHANNEL, self._on_notify)
            await connection.close()

    @contextlib.asynccontextmanager
    async def subscribe(self, space_id: uuid.UUID) -> AsyncIterator[asyncio.Queue[RunChange]]:
        """A queue of the space's run changes, from now until the block ends."""
        queue: asyncio.Queue[RunChange] = asyncio.Queue(maxsize=SUBSCRIBER_BUFFER)
        self._subscribers.setdefault(space_id, set()).add(queue)
        try:
            await self._ensure_listening()
            yield queue
        finally:
            listeners = self._subscribers.get(space_id, set())
            listeners.discard(queue)
            if not listeners:
                self._subscribers.pop(space_id, None)
            await self._stop_if_idle()

    async def close(self) -> None:
        """Stop listening (the application is shutting down)."""
        self._subscribers.clear()
        await self._stop_if_idle()
