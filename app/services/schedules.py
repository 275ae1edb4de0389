"""The schedule tick: fire due schedule triggers once per slot, then move them to their next slot.

Only due rows are read (indexed `next_fire_at`), locked with SKIP LOCKED, so two beats running by
mistake still fire each slot once. Each trigger fires in a savepoint: one failure never blocks the rest.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from app.engine.schedule import ScheduleError, plan_tick
from app.errors import AppError
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.repositories.triggers import TriggerRepository
from app.services.admission import refusal
from app.services.dispatch import DispatchLimits, FireRequest, dispatcher

logger = logging.getLogger(__name__)
TICK_BATCH = 1000


@dataclass(frozen=True)
class TickReport:
    due: int
    fired: int
    skipped: int


class ScheduleService:
    async def tick(self, session: AsyncSession, now: datetime, limits: DispatchLimits) -> TickReport:
        rows = await TriggerRepository(session).due_schedules(now, TICK_BATCH)
        fired = skipped = 0
        automations = {
            a.id: a for a in await AutomationRepository(session).get_many({r.automation_id for r in rows})
        }
        for row in rows:
            assert row.next_fire_at is not None
            config = row.config
            try:
                plan = plan_tick(
                    config["cron"],
                    config.get("timezone", "UTC"),
                    config.get("catch_up", "latest"),
                    row.next_fire_at,
                    now,
                )
            except ScheduleError as exc:
                logger.warning("schedule trigger %s stopped: %s", row.id, exc)
                row.next_fire_at = None
                continue
            row.next_fire_at = plan.next_fire_at
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
                continue
            request = FireRequest(
                trigger_type="schedule",
                trigger_id=row.id,
                payload={
                    "fired_at": now.isoformat(),
                    "scheduled_for": plan.scheduled_for.isoformat(),
                    "last_fired_at": row.last_fired_at.isoformat() if row.last_fired_at else None,
                },
                # No idempotency key: the row lock (SKIP LOCKED) and moving next_fire_at in the same
                # transaction already make each slot fire once, without two extra queries per fire.
                last_fired_at=row.last_fired_at.isoformat() if row.last_fired_at else None,
                refuse_bad_inputs=False,
            )
            try:
                async with session.begin_nested():
                    await dispatcher.fire(session, automation, request, limits)
            except AppError as exc:  # recorded in the log; the other triggers still fire
                logger.warning("schedule trigger %s could not fire: %s", row.id, exc.message)
                skipped += 1
                continue
            row.last_fired_at = now
            fired += 1
        await session.flush()
        return TickReport(due=len(rows), fired=fired, skipped=skipped)


schedule_service = ScheduleService()
