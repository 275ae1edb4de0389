"""Waking a waiting run, and what wakes one: the due-time tick, an event's dispatch, a child run's end.

A wake-up locks the run's row and decides on what it sees: a waiting run takes the `wake` edge through
the run's one door; a run still pending or running (a step registered its wait and the claim has not
ended yet) gets `wake_requested`, which turns its claim's `wait` into a wake in the same statement; a
finished run is left alone. The row lock orders a wake-up and the claim's end, so none is lost.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.definitions import run_states
from app.definitions.run_states import RunStatus
from app.engine.filters import FilterError, compile_filter
from app.lru import LruCache
from app.persistence.models import DomainEvent, Run
from app.persistence.repositories.run_waits import OpenEventWait, RunWaitRepository
from app.persistence.repositories.runs import RunRepository
from app.persistence.types import AsyncSession

# The door's rules wake parents through this module: each side imports the other's module.
from app.services.runs import transition as door
from app.services.runs.limits import DispatchLimits
from app.services.runs.moves import Move

# Open waits one tick satisfies at most per batch (the rest wait for the next batch or tick).
DUE_BATCH = 500
# Compiled wait filters a process keeps, by content hash (a filter compiles once, matches many times).
FILTER_CACHE_SIZE = 2048

Predicate = Callable[[dict[str, Any]], bool]


def _never(_: dict[str, Any]) -> bool:
    return False


def _always(_: dict[str, Any]) -> bool:
    return True


class _Filters:
    """Compiled event filters of waits, by the hash of their content."""

    def __init__(self, size: int = FILTER_CACHE_SIZE) -> None:
        self._compiled: LruCache[str, Predicate] = LruCache(size)

    def get(self, expr: dict[str, Any] | None) -> Predicate:
        if not expr:
            return _always
        key = hashlib.sha256(json.dumps(expr, sort_keys=True, default=str).encode()).hexdigest()
        return self._compiled.get_or_build(key, lambda: self._compile(expr))

    @staticmethod
    def _compile(expr: dict[str, Any]) -> Predicate:
        try:
            return compile_filter(expr)
        except FilterError:
            # Refused when the step registered it; a filter that no longer compiles matches nothing.
            return _never


@dataclass(frozen=True)
class TickReport:
    satisfied: int
    woken: int


class Waker:
    def __init__(self) -> None:
        self.filters = _Filters()

    async def wake(
        self, session: AsyncSession, run_id: uuid.UUID, now: datetime, limits: DispatchLimits
    ) -> str:
        """Wake one run whose wait was satisfied: "woken", "requested" (it was not waiting yet) or
        "finished" (nothing to wake)."""
        runs = RunRepository(session)
        run = await runs.lock(run_id)
        if run is None or run.status in run_states.TERMINAL:
            return "finished"
        if run.status is RunStatus.waiting:
            await door.transition(session, Move(run, run_states.WAKE, now, limits))
            return "woken"
        await runs.request_wake(run_id)
        return "requested"

    async def wake_all(
        self, session: AsyncSession, run_ids: Iterable[uuid.UUID], now: datetime, limits: DispatchLimits
    ) -> int:
        woken = 0
        # In id order, so two tickers that wake overlapping sets lock rows in the same order.
        for run_id in sorted(set(run_ids)):
            woken += await self.wake(session, run_id, now, limits) == "woken"
        return woken

    async def tick(self, session: AsyncSession, now: datetime, limits: DispatchLimits) -> TickReport:
        """Satisfy one batch of due waits (time up, an event's timeout) and wake their runs."""
        due = await RunWaitRepository(session).satisfy_due(now, DUE_BATCH)
        woken = await self.wake_all(session, (run_id for run_id, _ in due), now, limits)
        return TickReport(satisfied=len(due), woken=woken)

    async def recover(self, session: AsyncSession, now: datetime, limits: DispatchLimits) -> int:
        """Wake waiting runs whose wait was satisfied while they waited but who were never woken."""
        lost = await RunWaitRepository(session).unheeded(DUE_BATCH)
        return await self.wake_all(session, lost, now, limits)

    async def match_event(
        self, session: AsyncSession, event: DomainEvent, types: list[str], limits: DispatchLimits
    ) -> int:
        """Satisfy, for each run waiting for this event, its oldest matching wait (with the event's
        payload), and wake those runs. Called in the transaction that marks the event dispatched, whose
        row lock makes a second dispatch of the same event skip: an event wakes a run once."""
        repository = RunWaitRepository(session)
        waits = await repository.open_event_waits(event.space_id, types, event.created_at)
        by_run: dict[uuid.UUID, list[OpenEventWait]] = {}
        for wait in waits:
            if self.filters.get(wait.filter)(event.payload):
                by_run.setdefault(wait.run_id, []).append(wait)
        satisfied: list[uuid.UUID] = []
        now = event.dispatched_at or event.created_at
        for run_id, matching in by_run.items():
            for wait in matching:  # oldest first; another event may have taken one meanwhile
                if await repository.satisfy(wait.id, _event_outcome(event), now) is not None:
                    satisfied.append(run_id)
                    break
        await self.wake_all(session, satisfied, now, limits)
        return len(satisfied)

    async def child_ended(
        self, session: AsyncSession, child: Run, now: datetime, limits: DispatchLimits
    ) -> None:
        """A child run finished: its spend becomes its parent's, the parent's wait for it is satisfied
        with its status, output and error, and the parent wakes."""
        if child.parent_run_id is None:
            return
        outcome = {"status": RunStatus(child.status).value, "output": child.output, "error": child.error}
        parent_id = await RunWaitRepository(session).satisfy_child(child.id, outcome, now)
        await RunRepository(session).add_child_spend(child.parent_run_id, child)
        if parent_id is not None:
            await self.wake(session, parent_id, now, limits)

    async def cancel_children(
        self, session: AsyncSession, parent: Run, now: datetime, limits: DispatchLimits
    ) -> None:
        """A cancelled parent's children that have not finished are cancelled (or asked to stop); the
        parent's open waits close."""
        await RunWaitRepository(session).close_open(parent.id, now)
        for child in await RunRepository(session).children_under_way(parent.id):
            if child.status in run_states.CANCEL.sources:
                await door.transition(session, Move(child, run_states.CANCEL, now, limits))
            elif child.status is RunStatus.running:
                child.cancel_requested = True
        await session.flush()


def _event_outcome(event: DomainEvent) -> dict[str, Any]:
    """What a satisfied event wait keeps: the event's payload, under its identity."""
    return {
        "event_id": str(event.id),
        "event_type": event.event_type,
        "payload": event.payload,
        "occurred_at": event.created_at.isoformat(),
    }


waker = Waker()
