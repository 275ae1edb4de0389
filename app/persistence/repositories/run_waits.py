"""Queries over `run_waits`: what waiting steps wait for, and the conditional updates that satisfy them.

Every satisfaction is `UPDATE … WHERE satisfied_at IS NULL`: whoever comes first (the due-time tick, an
event's dispatch, a child's end) satisfies a wait, and nobody satisfies it twice.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, func, literal, select, update
from sqlalchemy.dialects.postgresql import insert

from app.definitions.run_states import RunStatus
from app.persistence.base import constant
from app.persistence.models import Run, RunWait
from app.persistence.repositories.base import RepositoryBase


@dataclass(frozen=True)
class OpenEventWait:
    """An open event wait as matching needs it: which run, its rendered filter, how old it is."""

    id: uuid.UUID
    run_id: uuid.UUID
    filter: dict[str, Any] | None
    created_at: datetime


class RunWaitRepository(RepositoryBase[RunWait]):
    model = RunWait

    async def register(self, values: dict[str, Any]) -> RunWait:
        """The wait of (run, path): written if new, else the row an earlier attempt wrote (idempotent)."""
        await self.session.execute(
            insert(RunWait)
            .values(id=uuid.uuid4(), **values)
            .on_conflict_do_nothing(index_elements=["run_id", "path"])
        )
        return await self.at(values["run_id"], values["path"], fresh=True)

    async def at(self, run_id: uuid.UUID, path: str, *, fresh: bool = False) -> RunWait:
        statement = select(RunWait).where(RunWait.run_id == run_id, RunWait.path == path)
        if fresh:
            statement = statement.execution_options(populate_existing=True)
        return (await self.session.scalars(statement)).one()

    async def find(self, run_id: uuid.UUID, path: str) -> RunWait | None:
        return await self.get_one_or_none(
            select(RunWait)
            .where(RunWait.run_id == run_id, RunWait.path == path)
            .execution_options(populate_existing=True)
        )

    async def attach_child(self, wait_id: uuid.UUID, child_run_id: uuid.UUID) -> None:
        await self.session.execute(
            update(RunWait).where(RunWait.id == wait_id).values(child_run_id=child_run_id)
        )

    async def satisfy_due(self, now: datetime, limit: int) -> Sequence[tuple[uuid.UUID, str]]:
        """Satisfy up to `limit` open waits due by `now`, skipping rows another tick holds: a time wait
        with `{"due": true}`, an event wait with `{"timed_out": true}`. Answers (run id, kind) of each.

        Reads the partial index on `due_at` of open rows only: the cost follows the due rows."""
        due = (
            select(RunWait.id)
            .where(RunWait.satisfied_at.is_(None), RunWait.due_at <= now)
            .order_by(RunWait.due_at)
            .limit(limit)
            .with_for_update(skip_locked=True)
            .scalar_subquery()
        )
        outcome = case(
            (RunWait.kind == constant("time"), func.jsonb_build_object("due", literal(True))),
            else_=func.jsonb_build_object("timed_out", literal(True)),
        )
        result = await self.session.execute(
            update(RunWait)
            .where(RunWait.id.in_(due), RunWait.satisfied_at.is_(None))
            .values(satisfied_at=now, outcome=outcome)
            .returning(RunWait.run_id, RunWait.kind)
        )
        return [(row[0], row[1]) for row in result.all()]

    async def open_event_waits(
        self, space_id: uuid.UUID, event_types: Sequence[str], published_at: datetime
    ) -> Sequence[OpenEventWait]:
        """Open event waits of the space for these types, registered before the event was published,
        oldest first (the event filter index of `run_waits`)."""
        statement = (
            select(RunWait.id, RunWait.run_id, RunWait.filter, RunWait.created_at)
            .where(
                RunWait.space_id == space_id,
                RunWait.kind == constant("event"),
                RunWait.satisfied_at.is_(None),
                RunWait.event_type.in_(list(event_types)),
                RunWait.created_at <= published_at,
            )
            .order_by(RunWait.created_at, RunWait.id)
        )
        rows = (await self.session.execute(statement)).all()
        return [OpenEventWait(row[0], row[1], row[2], row[3]) for row in rows]

    async def satisfy(self, wait_id: uuid.UUID, outcome: Any, now: datetime) -> uuid.UUID | None:
        """Satisfy one open wait; its run's id, or None when someone satisfied it first."""
        result = await self.session.execute(
            update(RunWait)
            .where(RunWait.id == wait_id, RunWait.satisfied_at.is_(None))
            .values(satisfied_at=now, outcome=outcome)
            .returning(RunWait.run_id)
        )
        return result.scalar_one_or_none()

    async def satisfy_child(self, child_run_id: uuid.UUID, outcome: Any, now: datetime) -> uuid.UUID | None:
        """Satisfy the open wait for this child run's end; the parent's id, or None if none was open."""
        result = await self.session.execute(
            update(RunWait)
            .where(RunWait.child_run_id == child_run_id, RunWait.satisfied_at.is_(None))
            .values(satisfied_at=now, outcome=outcome)
            .returning(RunWait.run_id)
        )
        return result.scalars().first()

    async def close_open(self, run_id: uuid.UUID, now: datetime) -> None:
        """Close a finished run's open waits, so no tick or event looks at them again."""
        await self.session.execute(
            update(RunWait)
            .where(RunWait.run_id == run_id, RunWait.satisfied_at.is_(None))
            .values(satisfied_at=now, outcome=func.jsonb_build_object("closed", literal(True)))
        )

    async def unheeded(self, limit: int) -> Sequence[uuid.UUID]:
        """Waiting runs with a wait satisfied since they began waiting: a wake-up that was lost."""
        satisfied_since = (
            select(RunWait.id)
            .where(
                RunWait.run_id == Run.id,
                RunWait.satisfied_at.is_not(None),
                RunWait.satisfied_at >= Run.status_changed_at,
            )
            .exists()
        )
        statement = (
            select(Run.id)
            .where(and_(Run.status == constant(RunStatus.waiting), satisfied_since))
            .limit(limit)
        )
        return (await self.session.scalars(statement)).all()
