"""The claim's statements: the conditional update that takes a run (named, or the next pending one of
some queues) and reads with it what the executor needs, built once per process."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, and_, bindparam, func, or_, select, update

from app.definitions import run_states
from app.definitions.run_states import RunStatus
from app.persistence.base import constant
from app.persistence.models import Automation, Run, Space
from app.persistence.repositories.policy import live_grants_subquery
from app.persistence.writer.statements import RUN_COLUMNS, RUNS, run_of

# What else a claim requires of each status it may take a run from: a pending run's backoff is over;
# a running run's lease has expired. A status the table adds without a condition here fails at import.
_CLAIMABLE_WHEN: dict[RunStatus, Callable[[Any, Any], ColumnElement[bool]]] = {
    RunStatus.pending: lambda runs, now: or_(runs.retry_at.is_(None), runs.retry_at <= now),
    RunStatus.running: lambda runs, now: runs.lease_expires_at < now,
}
if set(_CLAIMABLE_WHEN) != run_states.CLAIM.sources:
    raise RuntimeError("every status a claim may take a run from needs its condition here")


@dataclass(frozen=True)
class ClaimedRun:
    """A claimed run and the action modes and standing approvals read with it."""

    run: Run
    automation_modes: dict[str, str]
    space_modes: dict[str, str]
    approval_grants: list[list[str]]
    """`[id, capability, step_id, target]` of the automation's live standing approvals."""


def _claim_update(target: ColumnElement[bool]) -> Any:
    """The claim's conditional update of the run `target` names, returning the run's columns, the action
    modes and the live standing approvals (bound: worker, lease_until, now, and what `target` binds).

    A Core statement on the table, not an ORM update of `Run`: the ORM's bulk-update path would rebuild
    its Python evaluator of the WHERE clause and load the row into the identity map on every claim.
    """
    now = bindparam("now", type_=RUNS.c.started_at.type)
    claimable = [
        and_(RUNS.c.status == source, condition(RUNS.c, now)) for source, condition in _CLAIMABLE_WHEN.items()
    ]
    return (
        update(RUNS)
        .where(target, or_(*claimable))
        .values(
            status=run_states.CLAIM.target,
            claimed_by=bindparam("worker"),
            lease_expires_at=bindparam("lease_until", type_=RUNS.c.lease_expires_at.type),
            attempt=RUNS.c.attempt + 1,
            retry_at=None,
            # A wake-up asked for before this claim is this claim's to see: its steps read their waits.
            wake_requested=False,
            started_at=func.coalesce(RUNS.c.started_at, now),
            status_changed_at=now,
        )
        .returning(
            *RUNS.c,
            select(Automation.action_modes).where(Automation.id == RUNS.c.automation_id).scalar_subquery(),
            select(Space.action_modes).where(Space.id == RUNS.c.space_id).scalar_subquery(),
            live_grants_subquery(RUNS.c.automation_id),
        )
    )


@functools.cache
def claim_statement() -> Any:
    """The claim of one named run (bound: claim_run_id); built once."""
    return _claim_update(RUNS.c.id == bindparam("claim_run_id"))


def _next_pending(columns: Any) -> tuple[Any, ...]:
    """What a direct claim may take: a pending run of the named queues (bound: queues) claimable now."""
    now = bindparam("now", type_=RUNS.c.started_at.type)
    return (
        columns.status == constant(RunStatus.pending),
        _CLAIMABLE_WHEN[RunStatus.pending](columns, now),
        columns.queue.in_(bindparam("queues", expanding=True)),
    )


@functools.cache
def claim_next_statement() -> Any:
    """The claim of the next pending run of the named queues (bound: queues), highest priority then
    oldest first; built once.

    The pick locks its row with SKIP LOCKED, so workers picking at once take different runs and never
    wait on each other; a claim by id of the same run waits for the lock, then finds it running and
    takes nothing. The claim's own conditions are checked again on the locked row.
    """
    waiting = RUNS.alias("next_pending")
    pick = (
        select(waiting.c.id)
        .where(*_next_pending(waiting.c))
        .order_by(waiting.c.priority.desc(), waiting.c.created_at, waiting.c.id)
        .limit(1)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    return _claim_update(RUNS.c.id == pick)


@functools.cache
def pending_waits_statement() -> Any:
    """Whether the claim above would find a run to take now (bound: queues, now); built once."""
    return select(select(RUNS.c.id).where(*_next_pending(RUNS.c)).exists())


@functools.cache
def claimable_counts_statement() -> Any:
    """Per queue, the pending runs a direct claim could take now (bound: now); built once."""
    now = bindparam("now", type_=RUNS.c.started_at.type)
    return (
        select(RUNS.c.queue, func.count())
        .where(RUNS.c.status == constant(RunStatus.pending), _CLAIMABLE_WHEN[RunStatus.pending](RUNS.c, now))
        .group_by(RUNS.c.queue)
    )


def claimed(result: Any) -> ClaimedRun | None:
    """The claimed run and what the claim statement read with it, or None when it took nothing."""
    row = result.one_or_none()
    if row is None:
        return None
    modes = len(RUN_COLUMNS)
    return ClaimedRun(
        run_of(row), dict(row[modes] or {}), dict(row[modes + 1] or {}), list(row[modes + 2] or [])
    )
