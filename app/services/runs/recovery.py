"""Recovery, run from beat's tick: nothing a crash or a lost broker message leaves behind stays stuck.

Expired leases go back to pending; pending runs whose wake-up never led to a claim get another one.
Terminal runs are never touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from app import jobs
from app.definitions import run_states
from app.persistence.repositories.runs import RunRepository
from app.persistence.types import AsyncSession
from app.services.runs.limits import EXECUTE_TASK, DispatchLimits
from app.services.runs.moves import Move
from app.services.runs.promotion import promoter
from app.services.runs.transition import transition

BATCH = 500


@dataclass(frozen=True)
class RecoveryReport:
    released: int
    requeued: int
    promoted: int


class RecoveryService:
    async def recover(
        self, session: AsyncSession, now: datetime, *, requeue_after: timedelta, limits: DispatchLimits
    ) -> RecoveryReport:
        runs = RunRepository(session)
        released = await runs.expired_leases(now, BATCH)
        for run in released:
            # Fenced by the attempt that let its lease expire: the row is locked, so it still holds it.
            await transition(session, Move(run, run_states.RELEASE, now, limits, held=True))
        stranded = await runs.stranded_pending(now, now - requeue_after, BATCH)
        for run in stranded:
            run.enqueued_at = now
            jobs.enqueue(EXECUTE_TASK, str(run.id), queue=run.queue)
        await session.flush()
        promoted = await promoter.promote(session, limits)
        return RecoveryReport(released=len(released), requeued=len(stranded), promoted=len(promoted))


recovery_service = RecoveryService()
