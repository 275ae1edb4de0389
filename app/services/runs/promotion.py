"""Promotion: queued runs move to pending, highest priority then oldest first, as slots free up.

A run's end, a cancel or an expired approval promotes with the reason `slot freed by run …`; beat's
periodic check promotes with `queue check`. Each promotion is the `promote` edge through the run's one
door (`transition`), whose rules record when and why and send the wake-up.
"""

from __future__ import annotations

import uuid

from app.definitions import run_states
from app.persistence.base import utcnow
from app.persistence.models import Run
from app.persistence.repositories.runs import RunRepository
from app.persistence.types import AsyncSession
from app.services.runs import transition as door
from app.services.runs.limits import DispatchLimits
from app.services.runs.moves import Move

# A promotion looks at most this many pages of queued runs (each `batch` long) before it stops: the
# queries already leave out runs whose serial automation has one under way.
MAX_PROMOTION_PAGES = 10
PERIODIC_CHECK = "queue check"


def slot_freed_by(run_id: uuid.UUID) -> str:
    """The promotion reason recorded when a run's end (or cancel) made room."""
    return f"slot freed by run {run_id}"


class Promoter:
    """Moves queued runs to pending, highest priority then oldest first, when their automation and the
    global cap allow, and records on each when and why (`reason`)."""

    async def promote(
        self,
        session: AsyncSession,
        limits: DispatchLimits,
        *,
        reason: str = PERIODIC_CHECK,
        batch: int = 100,
    ) -> list[Run]:
        runs = RunRepository(session)
        cap = limits.max_concurrent_runs
        if cap > 0:
            await runs.lock_global_cap()
        active = await runs.count_in(run_states.HOLDS_SLOT) if cap > 0 else 0
        promoted: list[Run] = []
        # A serial automation gets one run per promotion; those with one under way are left out in SQL,
        # so a long line of blocked runs never hides a promotable one behind it.
        busy: set[uuid.UUID] = set()
        after: Run | None = None
        for _ in range(MAX_PROMOTION_PAGES):
            page = await runs.promotable_queued(batch, after=after)
            for run in page:
                if cap > 0 and active >= cap:
                    break
                serial = run.definition.get("execution", {}).get("concurrency") != "allow_parallel"
                if serial and run.automation_id in busy:
                    continue
                move = Move(run, run_states.PROMOTE, utcnow(), limits, reason=reason)
                written = await door.transition(session, move)
                if written is None:  # it left the queue meanwhile (a cancel)
                    continue
                promoted.append(written)
                busy.add(run.automation_id)
                active += 1
            if len(page) < batch or (cap > 0 and active >= cap):
                break
            after = page[-1]
        return promoted


promoter = Promoter()
