"""The dispatcher: the one entry every kind of fire takes, one fire or many, to queued or pending runs.

plan (`app.services.runs.fire_plan`: guards → inputs → admission in memory) → for a plan admission
could not settle in memory, a transaction (its automation's lock, the idempotency key, admission with
the database's facts) → the fire writer (`app.persistence.writer.fire`) writes the rows in the fewest
statements and buffers their wake-ups for after the commit → a dropped live run's end is announced.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import overload

from app import metrics
from app.errors import AppError
from app.persistence.base import utcnow
from app.persistence.models import Run
from app.persistence.types import AsyncSession
from app.persistence.writer.fire import fire_writer
from app.services.outbound.outbox import record_run_finished
from app.services.runs.fire_plan import (
    IDEMPOTENCY_WINDOW,
    FirePlan,
    admit_with_facts,
    key_reused,
    plan_fire,
)
from app.services.runs.fire_request import FiredAutomation, FireRequest, FireResult
from app.services.runs.limits import DispatchLimits

__all__ = ["Dispatcher", "dispatcher"]

FirePair = tuple[FiredAutomation, FireRequest]
Answer = FireResult | AppError


class Dispatcher:
    @overload
    async def fire(
        self,
        session: AsyncSession,
        fires: FirePair,
        limits: DispatchLimits,
        *,
        note_fired_at: datetime | None = None,
    ) -> FireResult: ...

    @overload
    async def fire(
        self,
        session: AsyncSession,
        fires: list[FirePair],
        limits: DispatchLimits,
        *,
        note_fired_at: datetime | None = None,
    ) -> list[Answer]: ...

    async def fire(
        self,
        session: AsyncSession,
        fires: FirePair | list[FirePair],
        limits: DispatchLimits,
        *,
        note_fired_at: datetime | None = None,
    ) -> FireResult | list[Answer]:
        """Create the runs these fires ask for (or return those their idempotency keys already made).

        One `(automation, request)`: its result, or its refusal raised before anything is written (a
        fire guard, an API caller's bad inputs, a reused key). A list (a schedule tick's due triggers):
        each answer in order, a result or the AppError that refused it; a fire that needs a
        transaction of its own runs in a savepoint, so a refusal leaves the others intact.

        With `note_fired_at`, a fire of a trigger (`request.trigger_id`) moves the trigger's
        `last_fired_at` in its run's INSERT. A session in autocommit
        (`app.persistence.transaction.autocommit`) keeps it for a fire the writer writes in one
        statement; any other leaves autocommit for a transaction.
        """
        if isinstance(fires, list):
            return await self._fire_all(session, fires, limits, note_fired_at, alone=False)
        [answer] = await self._fire_all(session, [fires], limits, note_fired_at, alone=True)
        if isinstance(answer, AppError):
            raise answer
        return answer

    async def _fire_all(
        self,
        session: AsyncSession,
        fires: Sequence[FirePair],
        limits: DispatchLimits,
        note_fired_at: datetime | None,
        *,
        alone: bool,
    ) -> list[Answer]:
        answers: list[Answer | None] = [None] * len(fires)
        settled: list[tuple[int, FirePlan]] = []
        unsettled: list[tuple[int, FirePlan]] = []
        for position, (automation, request) in enumerate(fires):
            plan = await plan_fire(session, automation, request, limits, note_fired_at)
            if isinstance(plan, AppError):
                answers[position] = plan
            elif plan.verdict is not None:
                settled.append((position, plan))
            else:
                unsettled.append((position, plan))
        if settled:
            plans = [plan for _, plan in settled]
            runs = await fire_writer.insert(
                session,
                [plan.row() for plan in plans],
                more_follows=any(plan.announces_end for plan in plans),
            )
            for (position, plan), run in zip(settled, runs, strict=True):
                answers[position] = await self._created(session, plan, run)
        for position, plan in unsettled:
            if alone:
                answers[position] = await self._in_transaction(session, plan, limits)
                continue
            try:
                async with session.begin_nested():
                    answers[position] = await self._in_transaction(session, plan, limits)
            except AppError as exc:
                answers[position] = exc
        return [answer for answer in answers if answer is not None]

    async def _in_transaction(
        self, session: AsyncSession, plan: FirePlan, limits: DispatchLimits
    ) -> FireResult:
        """Settle and write a plan that needs the database: lock, key check, admission with facts."""
        automation_id = plan.automation.id
        await fire_writer.begin(session, serialise=automation_id if plan.serialise else None)
        key = plan.request.idempotency_key
        if key:
            cutoff = utcnow() - IDEMPOTENCY_WINDOW
            existing = await fire_writer.earlier_run(session, automation_id, key, cutoff)
            if existing is not None:
                if existing.request_hash != plan.request_hash:
                    raise key_reused()
                return FireResult(existing, created=False, outcome="deduplicated")
        plan = plan.decided(await admit_with_facts(session, plan, limits))
        [run] = await fire_writer.insert(session, [plan.row()], more_follows=plan.announces_end)
        return await self._created(session, plan, run)

    async def _created(self, session: AsyncSession, plan: FirePlan, run: Run) -> FireResult:
        """What follows a new run's row: its count, and a dropped live run's notices in the outbox."""
        metrics.run_created(run.trigger_type, plan.status.value)
        if plan.announces_end:
            await record_run_finished(session, run)
        return FireResult(run, created=True, outcome=plan.outcome)


dispatcher = Dispatcher()
