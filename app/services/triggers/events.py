"""The event bus: `publish` records an event in the caller's transaction; `dispatch` matches it once.

Matching touches only event triggers in the event's space whose `event_type` is the event's own or one
of its `prefix.*` forms, through an index over their compiled filters (`app.engine.filters.index`) kept
per space and rebuilt when the space's event triggers change: an event visits only the filters that can
match it. Only matches of active automations fire. Each match fires through the dispatcher; chains
carry their depth and stop at the limit.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from app import jobs, metrics
from app.definitions.run_states import RunStatus
from app.engine.filters.index import FilterIndex
from app.errors import NotFound
from app.lru import LruCache
from app.persistence.base import utcnow
from app.persistence.models import DomainEvent
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.repositories.events import EventRepository
from app.persistence.repositories.triggers import TriggerRepository
from app.persistence.types import AsyncSession
from app.services.identity.access import Permissions, SpaceAccess
from app.services.runs.admission import refusal
from app.services.runs.dispatch import dispatcher
from app.services.runs.fire_request import FireRequest
from app.services.runs.limits import DispatchLimits

logger = logging.getLogger(__name__)
EVENT_RETENTION = timedelta(days=7)
DISPATCH_TASK = "events.dispatch"
# Spaces (x event type) whose filter index a process keeps; an index holds every event filter of one.
INDEX_CACHE_SIZE = 512


def listening_types(event_type: str) -> list[str]:
    """The trigger event types that hear `event_type`: itself and every `prefix.*` above it."""
    parts = event_type.split(".")
    return [event_type, *(".".join(parts[:i]) + ".*" for i in range(len(parts) - 1, 0, -1))]


@dataclass(frozen=True)
class _Indexed:
    generation: int
    index: FilterIndex[uuid.UUID]


class EventIndexes:
    """Per (space, listening types): the filter index of the space's event triggers, with the generation
    it was built at. The database moves a space's generation whenever one of its event triggers is
    added, removed or edited, so an index is rebuilt only then, and never serves a stale filter."""

    def __init__(self, size: int = INDEX_CACHE_SIZE) -> None:
        self._entries: LruCache[tuple[uuid.UUID, tuple[str, ...]], _Indexed] = LruCache(size)

    async def get(
        self, triggers: TriggerRepository, space_id: uuid.UUID, types: list[str]
    ) -> FilterIndex[uuid.UUID]:
        # The generation first: a change committed after this read bumps it again, so the next dispatch
        # rebuilds; the rows read next are at least as new as the generation recorded with them.
        generation = await triggers.event_generation(space_id)
        key = (space_id, tuple(types))
        cached = self._entries.get(key)
        if cached is not None and cached.generation == generation:
            return cached.index
        index = FilterIndex(await triggers.event_filters(space_id, types))
        self._entries.put(key, _Indexed(generation, index))
        return index


@dataclass(frozen=True)
class DispatchReport:
    matched: int
    fired: int
    refused: int
    woken: int = 0
    """Runs waiting for the event (`wait_for_event`) whose wait it satisfied."""


class EventWaits(Protocol):
    """The runs waiting for events (`app.services.runs.waking`), matched in the dispatch's transaction."""

    async def match_event(
        self, session: AsyncSession, event: DomainEvent, types: list[str], limits: DispatchLimits
    ) -> int: ...


class EventService:
    def __init__(self) -> None:
        self.indexes = EventIndexes()

    async def publish(
        self,
        session: AsyncSession,
        space_id: uuid.UUID,
        event_type: str,
        payload: dict[str, Any],
        source_id: str | None,
        *,
        chain_depth: int = 0,
        heard: bool = True,
    ) -> DomainEvent:
        """Record an event in the caller's transaction; its dispatch is enqueued for after the commit.
        The answer is a plain copy of the row written, not an object of the session.

        `heard` False: the caller found, in this transaction, no enabled event trigger of the space
        listening for the type. The event is recorded as dispatched to nobody, and no dispatcher wakes.
        """
        event = self.prepare(space_id, event_type, source_id, chain_depth=chain_depth)
        event.payload = payload
        event.dispatched_at = None if heard else event.created_at
        await EventRepository(session).insert(event)
        self.announce(event, heard=heard)
        return event

    def prepare(
        self, space_id: uuid.UUID, event_type: str, source_id: str | None, *, chain_depth: int = 0
    ) -> DomainEvent:
        """A new event's row, not yet written: its identity, time and retention. `publish` writes it;
        a statement that emits the event with a write of its own (a run's finish) writes it there,
        filling the payload and `dispatched_at` from that write, then calls `announce`."""
        now = utcnow()
        return DomainEvent(
            id=uuid.uuid4(),
            space_id=space_id,
            event_type=event_type,
            payload=None,
            source_id=source_id,
            chain_depth=chain_depth,
            consumed_by=[],
            created_at=now,
            dispatched_at=None,
            expires_at=now + EVENT_RETENTION,
        )

    def announce(self, event: DomainEvent, *, heard: bool) -> None:
        """Wake a dispatcher for a written event after the commit, unless no trigger listens (`heard`)."""
        if heard:
            jobs.enqueue(DISPATCH_TASK, str(event.id), queue="system")

    async def publish_from(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        event_type: str,
        payload: dict[str, Any],
        source_id: str | None,
    ) -> DomainEvent:
        """An event from outside (a connector calling the API) into the caller's space."""
        access.require(Permissions.write_automations)
        return await self.publish(session, access.space_id, event_type, payload, source_id)

    async def list(
        self, session: AsyncSession, access: SpaceAccess, *, limit: int, cursor: str | None
    ) -> Page[DomainEvent]:
        statement = EventRepository(session).space_statement(access.space_id)
        return await paginate(
            session, statement, order_by=[DomainEvent.created_at, DomainEvent.id], limit=limit, cursor=cursor
        )

    async def get(self, session: AsyncSession, access: SpaceAccess, event_id: uuid.UUID) -> DomainEvent:
        event = await EventRepository(session).get_one_or_none(
            EventRepository(session).space_statement(access.space_id).where(DomainEvent.id == event_id)
        )
        if event is None:
            raise NotFound("Event not found.", code="event_not_found")
        return event

    async def dispatch(
        self,
        session: AsyncSession,
        event_id: uuid.UUID,
        *,
        limits: DispatchLimits,
        max_chain_depth: int,
        waits: EventWaits | None = None,
    ) -> DispatchReport | None:
        """Match one event to triggers and fire each match, and (`waits`) wake the runs waiting for it;
        None if it was dispatched already.

        The event's row stays locked until the caller commits: a second dispatch of the same event waits,
        then skips it, so no trigger fires twice and no waiting run is woken twice by one event.

        Only active automations hear events (the candidate query says so); a match whose automation
        was paused since that query is skipped the same way, by the dispatcher's fire guards.
        """
        event = await EventRepository(session).lock_undispatched(event_id)
        if event is None:
            return None
        triggers = TriggerRepository(session)
        types = listening_types(event.event_type)
        index = await self.indexes.get(triggers, event.space_id, types)
        started = time.perf_counter()
        matched_ids = index.match(event.payload)
        metrics.event_matched(time.perf_counter() - started)
        # The index holds every enabled event trigger; only those of active automations hear the event.
        matches = await triggers.event_candidates(event.space_id, types, ids=matched_ids)
        automations = {
            a.id: a for a in await AutomationRepository(session).get_many({t.automation_id for t in matches})
        }
        consumed: list[dict[str, Any]] = []
        fired = refused = 0
        for trigger in matches:
            automation = automations[trigger.automation_id]
            if refusal(automation.status, "event") is not None:
                refused += 1
                continue
            request = FireRequest(
                trigger_type="event",
                trigger_id=trigger.id,
                payload={
                    "event_id": str(event.id),
                    "event_type": event.event_type,
                    "source_id": event.source_id,
                    "payload": event.payload,
                    "occurred_at": event.created_at.isoformat(),
                },
                # One run per (event, trigger), even if the event is dispatched twice.
                idempotency_key=f"event:{event.id}:{trigger.id}",
                chain_depth=event.chain_depth + 1,
                last_fired_at=trigger.last_fired_at.isoformat() if trigger.last_fired_at else None,
                refuse_bad_inputs=False,
                refuse_reason="chain_depth_exceeded" if event.chain_depth >= max_chain_depth else None,
            )
            result = await dispatcher.fire(session, (automation, request), limits)
            trigger.last_fired_at = event.created_at
            if result.run.status is RunStatus.dropped:
                refused += 1
            else:
                fired += 1
            consumed.append(
                {"trigger_id": str(trigger.id), "run_id": str(result.run.id), "status": result.run.status}
            )
        event.consumed_by, event.dispatched_at = consumed, utcnow()
        woken = await waits.match_event(session, event, types, limits) if waits is not None else 0
        await session.flush()
        return DispatchReport(matched=len(matches), fired=fired, refused=refused, woken=woken)

    async def sweep(self, session: AsyncSession, now: datetime, *, stale_after: timedelta) -> tuple[int, int]:
        """Re-enqueue events left undispatched (a crash between commit and enqueue); drop expired ones."""
        repository = EventRepository(session)
        deleted = await repository.delete_expired(now)  # first: an expired event is not worth dispatching
        stale = await repository.undispatched_before(now - stale_after, limit=500)
        for event in stale:
            jobs.enqueue(DISPATCH_TASK, str(event.id), queue="system")
        return len(stale), deleted


event_service = EventService()
