"""The statements of a claim's journal: each step record is one statement, and what used to need a
read and a write (is the claim still held? was a cancel asked for?) is part of it.

The statements are built once per shape with bound parameters and reused: a run executes the same
few shapes over and over, and building SQLAlchemy constructs per call costs more CPU than sending them.
"""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Table, bindparam, case, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.definitions.run_states import RunStatus
from app.persistence.models import Run, RunStep

RUN_STEPS: Table = RunStep.__table__  # type: ignore[assignment]
# Core tables rather than ORM entities: an ORM attribute anywhere in a statement sends it down the
# ORM's execution path, which costs more CPU per run than the statement's round trip.
RUNS: Table = Run.__table__  # type: ignore[assignment]
# Columns of a new step record, in the order its INSERT ... SELECT names them.
BEGIN_COLUMNS = (
    "id",
    "run_id",
    "phase",
    "step_index",
    "path",
    "step_id",
    "action",
    "attempt",
    "status",
    "started_at",
)
# Columns an attempt's end writes (a column it does not concern is written unchanged).
END_COLUMNS = (
    "status",
    "finished_at",
    "duration_ms",
    "config",
    "output",
    "output_full",
    "error",
    "suppressed",
    "suspension",
)


@dataclass(frozen=True)
class StepEnd:
    """How a step attempt ended: its record and the columns to write (a subset of `END_COLUMNS`)."""

    record_id: uuid.UUID
    values: dict[str, Any]

    def params(self) -> dict[str, Any]:
        """Bound parameters of `end_cte` / `end_statement`: every column, None where unchanged."""
        params: dict[str, Any] = {"end_id": self.record_id}
        for name in END_COLUMNS:
            params[f"end_{name}"] = self.values.get(name)
            params[f"end_keep_{name}"] = name not in self.values
        return params


def _end_values() -> dict[str, Any]:
    # `keep` leaves a column as it is (a failed attempt writes no output), so one shape serves every end.
    values: dict[str, Any] = {}
    for name in END_COLUMNS:
        keep = bindparam(f"end_keep_{name}", type_=Boolean())
        values[name] = case(
            (keep, RUN_STEPS.c[name]), else_=bindparam(f"end_{name}", type_=RUN_STEPS.c[name].type)
        )
    return values


def _end_update() -> Any:
    return update(RUN_STEPS).where(RUN_STEPS.c.id == bindparam("end_id")).values(_end_values())


def _held_where() -> Any:
    return (
        (RUNS.c.id == bindparam("held_run_id"))
        & (RUNS.c.attempt == bindparam("held_attempt"))
        & (RUNS.c.status == RunStatus.running)
    )


@functools.cache
def begin_statement(*, resumed: bool, with_end: bool, with_deadline: bool) -> Any:
    """Begin an attempt if the claim holds the run and no cancel was asked for; answers one row with
    `cancel_requested` when the claim holds the run, none when it is lost."""
    held: Any
    if with_deadline:
        held = (
            update(RUNS)
            .where(_held_where())
            .values(
                deadline_at=func.coalesce(
                    RUNS.c.deadline_at, bindparam("deadline", type_=RUNS.c.deadline_at.type)
                )
            )
            .returning(RUNS.c.cancel_requested)
        )
    else:
        held = select(RUNS.c.cancel_requested).where(_held_where())
    held_cte = held.cte("held")
    proceed = select(held_cte.c.cancel_requested).where(held_cte.c.cancel_requested.is_(False)).exists()
    begun: Any
    if resumed:
        begun = (
            update(RUN_STEPS)
            .where(RUN_STEPS.c.id == bindparam("new_id"), proceed)
            .values(status="running", finished_at=None, duration_ms=None)
        )
    else:
        values = [bindparam(f"new_{name}", type_=RUN_STEPS.c[name].type) for name in BEGIN_COLUMNS]
        begun = insert(RUN_STEPS).from_select(list(BEGIN_COLUMNS), select(*values).where(proceed))
    statement = select(held_cte.c.cancel_requested).add_cte(begun.cte("begun"))
    if with_end:
        statement = statement.add_cte(_end_update().cte("step_end"))
    return statement


@functools.cache
def end_statement() -> Any:
    """Record how an attempt ended."""
    return _end_update()


@functools.cache
def suspend_statement() -> Any:
    """A paused attempt's end, written only while the claim holds the run; answers the record's id then.

    The run's row is share-locked for the statement: a claim taking the run over either waits for this
    end (and then resumes the paused attempt) or has already moved the attempt on (nothing is written).
    """
    held = select(Run.id).where(_held_where()).with_for_update(read=True).cte("held")
    return _end_update().where(select(held.c.id).exists()).returning(RUN_STEPS.c.id)


@functools.cache
def items_statement() -> Any:
    """A loop's item list on its record, written only while the claim holds the run; answers the
    record's id then."""
    held = select(Run.id).where(_held_where()).cte("held")
    return (
        update(RUN_STEPS)
        .where(RUN_STEPS.c.id == bindparam("items_id"), select(held.c.id).exists())
        .values(loop_items=bindparam("items", type_=RUN_STEPS.c.loop_items.type))
        .returning(RUN_STEPS.c.id)
    )


@functools.cache
def fail_plan_statement(*, with_end: bool) -> Any:
    """The plan's failure on the run, if the claim holds it; answers the run's id then."""
    statement = (
        update(RUNS)
        .where(_held_where())
        .values(
            failed_step_id=bindparam("plan_step_id"), error=bindparam("plan_error", type_=RUNS.c.error.type)
        )
        .returning(RUNS.c.id)
    )
    return statement.add_cte(_end_update().cte("step_end")) if with_end else statement


@functools.cache
def stop_state_statement(*, with_end: bool) -> Any:
    """(attempt, status, cancel requested) of the run."""
    statement = select(RUNS.c.attempt, RUNS.c.status, RUNS.c.cancel_requested).where(
        RUNS.c.id == bindparam("state_run_id")
    )
    return statement.add_cte(_end_update().cte("step_end")) if with_end else statement


class RunJournalRepository:
    """The journal's statements for one claim (`attempt`) of one run."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def begin(
        self,
        record: dict[str, Any],
        *,
        attempt: int,
        resumed: bool = False,
        previous: StepEnd | None = None,
        deadline: datetime | None = None,
    ) -> bool | None:
        """Begin a step attempt if claim `attempt` still holds the run and no cancel was asked for, in
        one statement that also records the previous attempt's end (`previous`, written in any case)
        and, when given, the run's deadline.

        `record` holds the record's `BEGIN_COLUMNS`; with `resumed`, the suspended record of that id
        continues instead. Answers None when the claim is lost, True when a cancel was asked for
        (nothing begun), False once the attempt has begun.
        """
        statement = begin_statement(
            resumed=resumed, with_end=previous is not None, with_deadline=deadline is not None
        )
        params: dict[str, Any] = {f"new_{name}": record[name] for name in BEGIN_COLUMNS}
        params.update(held_run_id=record["run_id"], held_attempt=attempt, deadline=deadline)
        if previous is not None:
            params.update(previous.params())
        cancel = (await self.session.execute(statement, params)).scalar_one_or_none()
        return None if cancel is None else bool(cancel)

    async def end(self, end: StepEnd) -> None:
        """Record how a step attempt ended."""
        await self.session.execute(end_statement(), end.params())

    async def suspend(self, end: StepEnd, *, run_id: uuid.UUID, attempt: int) -> bool:
        """Record a paused attempt's end if claim `attempt` still holds the run; False when it is lost."""
        params = end.params()
        params.update(held_run_id=run_id, held_attempt=attempt)
        return (await self.session.execute(suspend_statement(), params)).one_or_none() is not None

    async def fix_items(
        self, record_id: uuid.UUID, items: list[Any], *, run_id: uuid.UUID, attempt: int
    ) -> bool:
        """Record the list a loop iterates on its record if claim `attempt` holds the run; False when
        it is lost."""
        params = {"items_id": record_id, "items": items, "held_run_id": run_id, "held_attempt": attempt}
        return (await self.session.execute(items_statement(), params)).one_or_none() is not None

    async def fail_plan(
        self, run_id: uuid.UUID, attempt: int, step_id: str, error: dict[str, Any], previous: StepEnd | None
    ) -> bool:
        """Record the plan's failure on the run if claim `attempt` holds it (with the previous attempt's
        end, written in any case); False when the claim is lost."""
        params: dict[str, Any] = {
            "held_run_id": run_id,
            "held_attempt": attempt,
            "plan_step_id": step_id,
            "plan_error": error,
        }
        if previous is not None:
            params.update(previous.params())
        result = await self.session.execute(fail_plan_statement(with_end=previous is not None), params)
        return result.one_or_none() is not None

    async def stop_state(
        self, run_id: uuid.UUID, previous: StepEnd | None
    ) -> tuple[int, RunStatus, bool] | None:
        """(attempt, status, cancel requested) of the run, recording the previous attempt's end with it."""
        params: dict[str, Any] = {"state_run_id": run_id}
        if previous is not None:
            params.update(previous.params())
        row = (
            await self.session.execute(stop_state_statement(with_end=previous is not None), params)
        ).one_or_none()
        return (row[0], RunStatus(row[1]), bool(row[2])) if row is not None else None
