"""The direct claim's pick on the real database: the next pending run of the named queues, highest
priority then oldest, never one of another queue, one still backing off, or one another claim holds."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from app.persistence.base import utcnow
from app.persistence.models import Run
from app.persistence.repositories.runs import RunRepository
from app.persistence.transaction import transaction
from tests.support.factories import Factory
from tests.support.runs import private_queue, stored_run

LEASE = timedelta(hours=1)


async def _next(app: Any, queues: tuple[str, ...]) -> uuid.UUID | None:
    async with transaction(app.state.sessionmaker, lambda job: None) as session:
        claimed = await RunRepository(session).claim_next_with_context(queues, "test-worker", LEASE, utcnow())
    return claimed.run.id if claimed is not None else None


class TestClaimNext:
    async def test_takes_its_queues_runs_by_priority_then_age_and_nothing_else(
        self, app: Any, factory: Factory
    ) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation()
        now = utcnow()
        mine, other = private_queue(), private_queue()

        async def stored(**columns: Any) -> Run:
            return await stored_run(app, owner, automation, **({"queue": mine} | columns))

        other_queue = await stored(queue=other, priority=9)
        backing_off = await stored(priority=9, retry_at=now + timedelta(hours=1))
        cancelled = await stored(status="cancelled", priority=9)
        old = await stored(created_at=now - timedelta(minutes=2))
        young = await stored(created_at=now - timedelta(minutes=1))
        urgent = await stored(priority=5)

        assert await _next(app, (mine,)) == urgent.id
        assert await _next(app, (mine,)) == old.id
        assert await _next(app, (mine,)) == young.id
        assert await _next(app, (mine,)) is None, "nothing else of the queue may be taken now"
        assert await _next(app, ()) is None
        assert await _next(app, (mine, other)) == other_queue.id
        async with transaction(app.state.sessionmaker, lambda job: None) as session:
            statuses = {run.id: await session.get(Run, run.id) for run in (backing_off, cancelled, young)}
        assert statuses[backing_off.id] is not None
        assert statuses[backing_off.id].status == "pending"
        assert statuses[cancelled.id] is not None
        assert statuses[cancelled.id].attempt == 0
        taken = statuses[young.id]
        assert taken is not None
        assert (taken.status, taken.claimed_by, taken.attempt) == (
            "running",
            "test-worker",
            1,
        )

    async def test_a_run_another_claim_holds_is_skipped_not_waited_for(
        self, app: Any, factory: Factory
    ) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation()
        now = utcnow()
        mine = private_queue()
        held = await stored_run(app, owner, automation, queue=mine, created_at=now - timedelta(minutes=1))
        free = await stored_run(app, owner, automation, queue=mine)
        async with transaction(app.state.sessionmaker, lambda job: None) as session:
            assert await RunRepository(session).lock(held.id) is not None  # another claim's row lock
            assert await _next(app, (mine,)) == free.id
        assert await _next(app, (mine,)) == held.id, "taken once the lock is gone"
