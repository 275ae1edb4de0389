"""The statements that end a claim: the finishing update, alone or in a transaction, and the plain `Run`
a statement's row is read into. Built once per shape with bound parameters, like the journal's."""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Table,
    Text,
    bindparam,
    case,
    cast,
    exists,
    func,
    insert,
    literal,
    null,
    select,
    update,
)

from app.definitions import run_states
from app.definitions.run_states import RunStatus, Transition
from app.persistence.base import constant
from app.persistence.models import AutomationTrigger, DomainEvent, Run
from app.persistence.repositories.outbound import listening
from app.persistence.repositories.run_journal import StepEnd, end_statement


@dataclass(frozen=True)
class FinishedRun:
    """A run moved on from its claim, and what its consequences need to know, read with the update."""

    run: Run
    queued_waiting: bool
    """A queued run existed: a promotion may be due."""
    endpoints_listening: bool
    """A webhook endpoint listens for the run's terminal event."""
    triggers_listening: bool
    """An enabled event trigger of the run's space listens for its terminal event."""


RUNS: Table = Run.__table__  # type: ignore[assignment]
RUN_COLUMNS = tuple(column.key for column in RUNS.c)
_QUEUED = RUNS.alias("queued")
EVENTS: Table = DomainEvent.__table__  # type: ignore[assignment]


def run_of(row: Any) -> Run:
    """A `Run` holding the run columns a statement returned first (a plain object, in no session).

    Filled the way the ORM's loader fills a row's object, without an attribute event per column:
    the constructor's events cost more than the rest of reading the row.
    """
    run: Run = Run.__mapper__.class_manager.new_instance()
    run.__dict__.update(zip(RUN_COLUMNS, row, strict=False))
    return run


def _finishing_update(target: RunStatus, columns: tuple[str, ...]) -> Any:
    """The update a claim's finish makes for one shape (target status, columns written), fenced by the
    claim's attempt (bound: held_run_id, held_attempt, set_<column>)."""
    return (
        update(RUNS)
        .where(
            RUNS.c.id == bindparam("held_run_id"),
            RUNS.c.attempt == bindparam("held_attempt"),
            RUNS.c.status == RunStatus.running,
        )
        .values(
            status=target,
            status_changed_at=func.now(),
            claimed_by=None,
            lease_expires_at=None,
            **{name: bindparam(f"set_{name}", type_=RUNS.c[name].type) for name in columns},
        )
    )


def _queued_waiting() -> ColumnElement[bool]:
    return exists().where(_QUEUED.c.status == constant(RunStatus.queued))


def _endpoints_listening(target: RunStatus) -> ColumnElement[bool]:
    return exists().where(listening(RUNS.c.space_id, f"automation.run.{target}"))


def _triggers_listening(event_types: tuple[str, ...]) -> ColumnElement[bool]:
    return exists().where(
        AutomationTrigger.space_id == RUNS.c.space_id,
        AutomationTrigger.type == constant("event"),
        AutomationTrigger.enabled.is_(True),
        # One bound value each rather than an expanding IN: the statement is built per tuple anyway,
        # and an expanding parameter is rewritten into the SQL on every execution.
        AutomationTrigger.event_type.in_([literal(name) for name in event_types]),
    )


@functools.cache
def finish_with_context_statement(
    target: RunStatus, columns: tuple[str, ...], with_end: bool, event_types: tuple[str, ...]
) -> Any:
    """A claim's finishing update for one shape (target status, columns written, a step end or not),
    returning the run, whether a run waits queued, whether an endpoint listens for the terminal event
    and whether an event trigger listens for one of `event_types`; built once."""
    statement = _finishing_update(target, columns).returning(
        *RUNS.c, _queued_waiting(), _endpoints_listening(target), _triggers_listening(event_types)
    )
    return statement.add_cte(end_statement().cte("step_end")) if with_end else statement


@functools.cache
def finish_alone_statement(
    target: RunStatus, columns: tuple[str, ...], with_end: bool, event_types: tuple[str, ...], announce: bool
) -> Any:
    """The finish as one statement with nothing to follow it (see `RunRepository.finish_alone`): the
    finishing update, taken only when no consequence needs a statement of its own, and with `announce`
    (a live run's terminal finish) the terminal event inserted from the updated row (bound: event_id,
    event_type, event_source_id, event_created_at, event_expires_at); built once."""
    update_ = _finishing_update(target, columns)
    if target in run_states.TERMINAL:
        update_ = update_.where(~_queued_waiting())
    if announce:
        # A live run's terminal event owes deliveries to listening endpoints and to its callback.
        update_ = update_.where(~_endpoints_listening(target), RUNS.c.callback_url.is_(None))
    finished = update_.returning(*RUNS.c, _triggers_listening(event_types).label("heard")).cte("finished")
    statement = select(*(finished.c[key] for key in RUN_COLUMNS), finished.c.heard)
    if announce:
        created = bindparam("event_created_at", type_=EVENTS.c.created_at.type)
        payload = func.jsonb_build_object(
            "automation_id",
            cast(finished.c.automation_id, Text),
            "run_id",
            cast(finished.c.id, Text),
            "status",
            finished.c.status,
            "output",
            finished.c.output,
            "error",
            finished.c.error,
        )
        columns_ = ("id", "space_id", "event_type", "source_id", "payload", "chain_depth", "consumed_by")
        event = insert(EVENTS).from_select(
            [*columns_, "created_at", "dispatched_at", "expires_at"],
            select(
                bindparam("event_id", type_=EVENTS.c.id.type),
                finished.c.space_id,
                bindparam("event_type", type_=EVENTS.c.event_type.type),
                bindparam("event_source_id", type_=EVENTS.c.source_id.type),
                payload,
                finished.c.chain_depth,
                func.jsonb_build_array(),
                created,
                case((finished.c.heard, null()), else_=created),
                bindparam("event_expires_at", type_=EVENTS.c.expires_at.type),
            ),
        )
        statement = statement.add_cte(event.cte("announced"))
    return statement.add_cte(end_statement().cte("step_end")) if with_end else statement


def finish_params(
    run_id: uuid.UUID,
    attempt: int,
    transition: Transition,
    values: dict[str, Any],
    step_end: StepEnd | None,
) -> dict[str, Any]:
    """The bound values of a claim's finishing statement; refuses an edge that does not leave running."""
    if RunStatus.running not in transition.sources:
        raise run_states.TransitionRefused(RunStatus.running, transition.target, transition)
    params = {
        "held_run_id": run_id,
        "held_attempt": attempt,
        **{f"set_{name}": value for name, value in values.items()},
    }
    if step_end is not None:
        params.update(step_end.params())
    return params
