"""The schedule tick: fire due schedule triggers once per slot, then move them to their next slot.

Only due rows are read (indexed `next_fire_at`), locked with SKIP LOCKED, so two beats running by
mistake still fire each slot once. A tick takes a batch of due triggers: the runs of the fires admission
decides in memory are written with one INSERT, the others fire one by one in savepoints (one refusal
never blocks the rest), and every trigger's next slot is stored with one UPDATE.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime

from app import metrics
from app.engine.schedule import ScheduleError, TickPlan, plan_tick
from app.errors import AppError
from app.persistence.base import utcnow
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.repositories.triggers import DueSchedule, ScheduleMove, TriggerRepository
from app.persistence.types import AsyncSession
from app.services.runs.admission import refusal
from app.services.runs.dispatch import dispatcher
from app.services.runs.fire_request import FiredAutomation, FireRequest
from app.services.runs.limits import DispatchLimits

logger = logging.getLogger(__name__)
# Due triggers one tick takes: fired with one INSERT of their runs and one UPDATE of their next slots.
TICK_BATCH = 500


@dataclass(frozen=True)
class TickReport:
    due: int
    fired: int
    skipped: int


class ScheduleService:
    async def tick(
        self, session: AsyncSession, now: datetime, limits: DispatchLimits, *, batch: int = TICK_BATCH
    ) -> TickReport:
        """Fire up to `batch` due triggers (oldest slot first) and move each to its next slot.

        A report with `due == batch` means more may be due: the caller commits and ticks again.
        """
        triggers = TriggerRepository(session)
        rows = await triggers.due_schedule_batch(now, batch)
        if not rows:
            return TickReport(due=0, fired=0, skipped=0)
        automations = {
            a.id: a for a in await AutomationRepository(session).get_many({r.automation_id for r in rows})
        }
        # Triggers due together mostly share a cron and a slot: plan each distinct one once.
        plans: dict[tuple[str, str, str, datetime], TickPlan | ScheduleError] = {}
        moves: list[ScheduleMove] = []
        fires: list[tuple[FiredAutomation, FireRequest]] = []
        firing: list[tuple[DueSchedule, datetime]] = []
        skipped = 0
        for row in rows:
            config = row.config
            key = (
                config["cron"],
                config.get("timezone", "UTC"),
                config.get("catch_up", "latest"),
                row.next_fire_at,
            )
            plan = plans.get(key)
            if plan is None:
                try:
                    plan = plan_tick(*key, now)
                except ScheduleError as exc:
                    plan = exc
                plans[key] = plan
            if isinstance(plan, ScheduleError):
                logger.warning("schedule trigger %s stopped: %s", row.id, plan)
                moves.append(ScheduleMove(row.id, None, None))
                continue
            automation = automations.get(row.automation_id)
            # A slot that falls while the automation is paused is skipped, like one the fire guards
            # refuse in the dispatcher: no run, no catch-up later. Pausing clears next_fire_at, so this
            # only meets a pause that raced with the tick.
            if (
                plan.scheduled_for is None
                or automation is None
                or refusal(automation.status, "schedule") is not None
            ):
                skipped += 1
                moves.append(ScheduleMove(row.id, plan.next_fire_at, None))
                continue
            last_fired = row.last_fired_at.isoformat() if row.last_fired_at else None
            fires.append(
                (
                    automation,
                    FireRequest(
                        trigger_type="schedule",
                        trigger_id=row.id,
                        payload={
                            "fired_at": now.isoformat(),
                            "scheduled_for": plan.scheduled_for.isoformat(),
                            "last_fired_at": last_fired,
                        },
                        # No idempotency key: the row lock (SKIP LOCKED) and moving next_fire_at in the
                        # same transaction already make each slot fire once.
                        last_fired_at=last_fired,
                        refuse_bad_inputs=False,
                    ),
                )
            )
            firing.append((row, plan.scheduled_for))
            moves.append(ScheduleMove(row.id, plan.next_fire_at, None))
        answers = await dispatcher.fire(session, fires, limits)
        fired = 0
        fired_ids: set[uuid.UUID] = set()
        wall = utcnow()
        for (row, scheduled_for), answer in zip(firing, answers, strict=True):
            if isinstance(answer, AppError):  # recorded in the log; the other triggers still fired
                logger.warning("schedule trigger %s could not fire: %s", row.id, answer.message)
                skipped += 1
                continue
            fired += 1
            fired_ids.add(row.id)
            metrics.schedule_fired((wall - scheduled_for).total_seconds())
        await triggers.move_schedules(
            [move._replace(fired_at=now) if move.trigger_id in fired_ids else move for move in moves]
        )
        return TickReport(due=len(rows), fired=fired, skipped=skipped)


schedule_service = ScheduleService()
