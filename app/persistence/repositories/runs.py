"""Queries over runs: the persisted queue. Claims, lease renewals and finishes are single conditional
updates whose `WHERE status IN (…)` sets come from the run-state table (`app.definitions.run_states`).
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from datetime import datetime, timedelta
from decimal import Decimal

from sqlalchemy import (
    Select,
    and_,
    func,
    or_,
    select,
    tuple_,
    update,
)
from sqlalchemy.orm import aliased

from app.definitions import run_states
from app.definitions.run_states import RunStatus
from app.persistence.base import constant
from app.persistence.models import Run, RunStep
from app.persistence.repositories.base import RepositoryBase
from app.persistence.repositories.run_claims import (
    ClaimedRun,
    claim_next_statement,
    claim_statement,
    claimable_counts_statement,
    claimed,
    pending_waits_statement,
)

# Serialises fires against the global cap (taken only when a cap is set): an arbitrary constant key.
GLOBAL_CAP_LOCK_KEY = 7_340_021


class RunRepository(RepositoryBase[Run]):
    model = Run

    def space_statement(self, space_id: uuid.UUID) -> Select[Run]:
        return select(Run).where(Run.space_id == space_id)

    def listing_statement(
        self,
        space_id: uuid.UUID,
        automation_id: uuid.UUID | None,
        statuses: Collection[str] | None,
        *,
        parent_run_id: uuid.UUID | None = None,
    ) -> Select[Run]:
        statement = self.space_statement(space_id)
        if parent_run_id is not None:
            statement = statement.where(Run.parent_run_id == parent_run_id)
        if automation_id is not None:
            statement = statement.where(Run.automation_id == automation_id)
        if statuses:
            statement = statement.where(Run.status.in_(statuses))
        return statement

    async def changed_since(self, space_id: uuid.UUID, since: datetime, limit: int) -> list[Run]:
        """Runs of the space created or whose status moved after `since`, most recent change first.

        Every status move writes `status_changed_at` (waiting for approval and promotion from the queue
        included), so this reads the space's `ix_runs_space_status_changed` range and nothing else."""
        statement = (
            self.space_statement(space_id)
            .where(Run.status_changed_at > since)
            .order_by(Run.status_changed_at.desc(), Run.id)
            .limit(limit)
        )
        return list(await self.get_all(statement))

    async def get_in_space(
        self, space_id: uuid.UUID, run_id: uuid.UUID, *, for_update: bool = False
    ) -> Run | None:
        statement = self.space_statement(space_id).where(Run.id == run_id)
        if for_update:
            statement = statement.with_for_update()
        return await self.get_one_or_none(statement)

    async def lock(self, run_id: uuid.UUID) -> Run | None:
        """The run, read afresh and held until the transaction ends (a wake-up decides on it)."""
        return await self.get_one_or_none(
            select(Run).where(Run.id == run_id).with_for_update().execution_options(populate_existing=True)
        )

    async def request_wake(self, run_id: uuid.UUID) -> None:
        """Keep a wake-up for a run that is not waiting yet: its claim's wait becomes a wake."""
        await self.session.execute(
            update(Run)
            .where(Run.id == run_id, Run.status.in_([RunStatus.pending, RunStatus.running]))
            .values(wake_requested=True)
        )

    async def children_under_way(self, parent_run_id: uuid.UUID) -> Sequence[Run]:
        """The parent's child runs that have not finished, locked (a cancel takes them along)."""
        statement = (
            select(Run)
            .where(
                Run.parent_run_id == parent_run_id,
                Run.status.in_(sorted(run_states.IN_FLIGHT)),
            )
            .with_for_update()
        )
        return (await self.session.scalars(statement)).all()

    async def spend_of(self, run_id: uuid.UUID) -> tuple[Decimal, int]:
        """The LLM spend its budget counts so far: its own and its finished children's, cost and tokens."""
        statement = select(
            Run.cost_usd + Run.children_cost_usd, Run.llm_tokens + Run.children_llm_tokens
        ).where(Run.id == run_id)
        row = (await self.session.execute(statement)).one()
        return Decimal(row[0]), int(row[1])

    async def add_child_spend(self, parent_run_id: uuid.UUID, child: Run) -> None:
        """A finished child's LLM spend (with its own children's) counts against its parent's budget; it
        stays out of the parent's own `cost_usd`, so a sum over runs counts each call once."""
        await self.session.execute(
            update(Run)
            .where(Run.id == parent_run_id)
            .values(
                children_cost_usd=Run.children_cost_usd + child.cost_usd + child.children_cost_usd,
                children_llm_tokens=Run.children_llm_tokens + child.llm_tokens + child.children_llm_tokens,
            )
        )

    async def create_many(self, runs: Sequence[Run]) -> None:
        """Write new runs together: the flush sends them as one multi-row INSERT per thousand rows."""
        self.session.add_all(runs)
        await self.session.flush()

    async def by_idempotency_key(self, automation_id: uuid.UUID, key: str) -> Run | None:
        return await self.get_one_or_none(
            select(Run).where(Run.automation_id == automation_id, Run.idempotency_key == key)
        )

    async def forget_idempotency_keys_before(
        self, automation_id: uuid.UUID, key: str, cutoff: datetime
    ) -> None:
        """A key older than its window no longer deduplicates: free it for a new run."""
        await self.session.execute(
            update(Run)
            .where(Run.automation_id == automation_id, Run.idempotency_key == key, Run.created_at < cutoff)
            .values(idempotency_key=None)
        )

    async def count_in(
        self,
        statuses: Collection[RunStatus],
        automation_id: uuid.UUID | None = None,
        *,
        live_only: bool = False,
    ) -> int:
        """Runs in these statuses (of one automation); `live_only` leaves dry and verify runs out."""
        statement = select(func.count()).select_from(Run).where(Run.status.in_(statuses))
        if automation_id is not None:
            statement = statement.where(Run.automation_id == automation_id)
        if live_only:
            statement = statement.where(Run.mode == "live")
        return int((await self.session.execute(statement)).scalar_one())

    async def lock_global_cap(self) -> None:
        await self.session.execute(select(func.pg_advisory_xact_lock(GLOBAL_CAP_LOCK_KEY)))

    async def promotable_queued(self, limit: int, *, after: Run | None = None) -> Sequence[Run]:
        """Queued runs in promotion order (highest priority, then oldest), after `after` (the last run
        of the previous page), skipping rows another promoter holds and runs of serial automations
        that already have a live run under way (they cannot start, so they never fill a page)."""
        other = aliased(Run)
        under_way = (
            select(other.id)
            .where(
                other.automation_id == Run.automation_id,
                other.status.in_([constant(status) for status in sorted(run_states.UNDER_WAY)]),
                other.mode == "live",
            )
            .exists()
        )
        serial = Run.definition["execution"]["concurrency"].astext.is_distinct_from("allow_parallel")
        statement = (
            select(Run)
            .where(Run.status == constant(RunStatus.queued), ~and_(serial, under_way))
            .order_by(Run.priority.desc(), Run.created_at, Run.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        if after is not None:
            # Keyset paging in the same order: (-priority, created_at, id) after the last one seen.
            statement = statement.where(
                tuple_(-Run.priority, Run.created_at, Run.id)
                > tuple_(-after.priority, after.created_at, after.id)
            )
        return (await self.session.scalars(statement)).all()

    async def claim(self, run_id: uuid.UUID, worker: str, lease: timedelta, now: datetime) -> Run | None:
        """`claim_with_context`, the run alone."""
        claimed = await self.claim_with_context(run_id, worker, lease, now)
        return claimed.run if claimed is not None else None

    async def claim_with_context(
        self, run_id: uuid.UUID, worker: str, lease: timedelta, now: datetime
    ) -> ClaimedRun | None:
        """Take a pending run (or one whose lease expired) for `worker`; None if someone else has it.

        The same statement answers what the executor needs besides the row: the automation's and its
        space's action modes and the automation's standing approvals (one round trip, not three)."""
        params = {"claim_run_id": run_id, "worker": worker, "lease_until": now + lease, "now": now}
        return claimed(await self.session.execute(claim_statement(), params))

    async def claim_next_with_context(
        self, queues: Sequence[str], worker: str, lease: timedelta, now: datetime
    ) -> ClaimedRun | None:
        """`claim_with_context` of the next pending run of `queues` (highest priority, then oldest) that
        no other claim holds; None when there is none."""
        if not queues:
            return None
        params = {"queues": list(queues), "worker": worker, "lease_until": now + lease, "now": now}
        return claimed(await self.session.execute(claim_next_statement(), params))

    async def pending_waits(self, queues: Sequence[str], now: datetime) -> bool:
        """Whether a run of `queues` is pending and could be claimed now (the pick of
        `claim_next_with_context`, without taking it)."""
        if not queues:
            return False
        params = {"queues": list(queues), "now": now}
        return bool((await self.session.execute(pending_waits_statement(), params)).scalar())

    async def claimable_by_queue(self, now: datetime) -> dict[str, int]:
        """Per queue, the pending runs a worker of it could claim now (its backoff over): the backlog
        autoscalers and the pending-runs gauge watch."""
        return dict((await self.session.execute(claimable_counts_statement(), {"now": now})).all())

    async def holds(self, run_id: uuid.UUID, attempt: int) -> bool:
        """Whether claim `attempt` still holds the run, with a share lock until the transaction ends:
        whatever the transaction writes on the claim's behalf commits before another claim can take it."""
        result = await self.session.execute(
            select(Run.id)
            .where(Run.id == run_id, Run.attempt == attempt, Run.status == RunStatus.running)
            .with_for_update(read=True)
        )
        return result.one_or_none() is not None

    async def renew_lease(self, run_id: uuid.UUID, attempt: int, lease: timedelta, now: datetime) -> bool:
        result = await self.session.execute(
            update(Run)
            .where(Run.id == run_id, Run.attempt == attempt, Run.status == RunStatus.running)
            .values(lease_expires_at=now + lease)
            .returning(Run.id)
        )
        return result.one_or_none() is not None

    async def expired_leases(self, now: datetime, limit: int) -> Sequence[Run]:
        statement = (
            select(Run)
            .where(
                Run.status.in_([constant(status) for status in sorted(run_states.RELEASE.sources)]),
                Run.lease_expires_at < now,
            )
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        return (await self.session.scalars(statement)).all()

    async def stranded_pending(self, now: datetime, enqueued_before: datetime, limit: int) -> Sequence[Run]:
        """Pending runs due now whose wake-up was sent a while ago and never claimed (lost message)."""
        statement = (
            select(Run)
            .where(
                Run.status == constant(RunStatus.pending),
                or_(Run.retry_at.is_(None), Run.retry_at <= now),
                or_(Run.enqueued_at.is_(None), Run.enqueued_at < enqueued_before),
            )
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        return (await self.session.scalars(statement)).all()

    async def average_cost(self, automation_id: uuid.UUID, last: int = 20) -> float | None:
        recent = (
            select(Run.cost_usd)
            .where(Run.automation_id == automation_id, Run.status == RunStatus.succeeded)
            .order_by(Run.created_at.desc())
            .limit(last)
            .subquery()
        )
        value = (await self.session.execute(select(func.avg(recent.c.cost_usd)))).scalar_one_or_none()
        return float(value) if value is not None else None


class RunStepRepository(RepositoryBase[RunStep]):
    model = RunStep

    async def for_run(self, run_id: uuid.UUID) -> Sequence[RunStep]:
        statement = select(RunStep).where(RunStep.run_id == run_id).order_by(RunStep.started_at, RunStep.id)
        return (await self.session.scalars(statement)).all()

    async def at_path(self, run_id: uuid.UUID, path: str, phase: str | None = None) -> Sequence[RunStep]:
        """The run's records of the step at `path` and of every step under it (an iteration's steps
        under `loop/3`, a loop's under `loop`), oldest first."""
        statement = (
            select(RunStep)
            .where(
                RunStep.run_id == run_id,
                (RunStep.path == path) | RunStep.path.startswith(f"{path}/", autoescape=True),
            )
            .order_by(RunStep.started_at, RunStep.id)
        )
        if phase is not None:
            statement = statement.where(RunStep.phase == phase)
        return (await self.session.scalars(statement)).all()
