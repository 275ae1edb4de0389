"""The statement a run plan becomes: the status update, and with it (as data-modifying CTEs) the claim's
last step end, the terminal event built from the updated row, and the suspended steps an expiry fails.
Built once per plan shape with bound parameters, like the journal's statements."""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Table,
    Text,
    bindparam,
    case,
    cast,
    exists,
    false,
    func,
    insert,
    literal,
    null,
    or_,
    select,
    update,
)

from app.definitions import run_states
from app.definitions.run_states import RunStatus
from app.persistence.base import constant
from app.persistence.models import AutomationTrigger, DomainEvent, Run, RunStep, RunWait
from app.persistence.repositories.outbound import listening
from app.persistence.repositories.run_journal import end_statement
from app.persistence.writer.plans import PlanShape, RunPlan

RUNS: Table = Run.__table__  # type: ignore[assignment]
RUN_COLUMNS = tuple(column.key for column in RUNS.c)
RUN_STEPS: Table = RunStep.__table__  # type: ignore[assignment]
EVENTS: Table = DomainEvent.__table__  # type: ignore[assignment]
RUN_WAITS: Table = RunWait.__table__  # type: ignore[assignment]
_QUEUED = RUNS.alias("queued")
_EVENT_COLUMNS = (
    "id",
    "space_id",
    "event_type",
    "source_id",
    "payload",
    "chain_depth",
    "consumed_by",
    "created_at",
    "dispatched_at",
    "expires_at",
)


def run_of(row: Any) -> Run:
    """A `Run` holding the run columns a statement returned first (a plain object, in no session).

    Filled the way the ORM's loader fills a row's object, without an attribute event per column:
    the constructor's events cost more than the rest of reading the row.
    """
    run: Run = Run.__mapper__.class_manager.new_instance()
    run.__dict__.update(zip(RUN_COLUMNS, row, strict=False))
    return run


def _queued_waiting() -> ColumnElement[bool]:
    return exists().where(_QUEUED.c.status == constant(RunStatus.queued))


def _endpoints_listening(target: RunStatus) -> ColumnElement[bool]:
    return exists().where(listening(RUNS.c.space_id, f"automation.run.{target}"))


def _triggers_listening(event_types: tuple[str, ...]) -> ColumnElement[bool]:
    """An enabled event trigger, or an open `wait_for_event`, of the run's space hears these types."""
    # One bound value each rather than an expanding IN: the statement is built per tuple anyway,
    # and an expanding parameter is rewritten into the SQL on every execution.
    names = [literal(name) for name in event_types]
    trigger = exists().where(
        AutomationTrigger.space_id == RUNS.c.space_id,
        AutomationTrigger.type == constant("event"),
        AutomationTrigger.enabled.is_(True),
        AutomationTrigger.event_type.in_(names),
    )
    wait = exists().where(
        RUN_WAITS.c.space_id == RUNS.c.space_id,
        RUN_WAITS.c.kind == constant("event"),
        RUN_WAITS.c.satisfied_at.is_(None),
        RUN_WAITS.c.event_type.in_(names),
    )
    return or_(trigger, wait)


def terminal_payload(moved: Any) -> ColumnElement[Any]:
    """`automation.run.<status>`'s payload, from the row the plan wrote: the one place it is built."""
    return func.jsonb_build_object(
        "automation_id",
        cast(moved.c.automation_id, Text),
        "run_id",
        cast(moved.c.id, Text),
        "status",
        moved.c.status,
        "output",
        moved.c.output,
        "error",
        moved.c.error,
    )


def _update(shape: PlanShape) -> Any:
    """The status update, fenced by the plan's sources (and the claim's attempt when it holds the run)."""
    conditions = [
        RUNS.c.id == bindparam("plan_run_id"),
        RUNS.c.status.in_([constant(status) for status in shape.sources]),
    ]
    if shape.fenced:
        conditions.append(RUNS.c.attempt == bindparam("plan_attempt"))
    if shape.alone:
        # Taken only when nothing must follow it in a transaction of its own.
        if shape.target in run_states.TERMINAL:
            conditions.append(~_queued_waiting())
        if shape.announce:
            # A live run's terminal event owes deliveries to listening endpoints and to its callback.
            conditions += [~_endpoints_listening(shape.target), RUNS.c.callback_url.is_(None)]
    status: Any = shape.target
    woken: dict[str, Any] = {}
    if shape.target is RunStatus.waiting:
        # A wake-up that came while the claim still ran (`wake_requested`) turns the wait into a wake in
        # the same statement (`wait` then `wake`): set before this update or blocking it on the row, it is
        # never lost. The SET expressions read the row as it was.
        requested = RUNS.c.wake_requested
        status = case((requested, constant(RunStatus.pending)), else_=constant(RunStatus.waiting))
        woken = {
            "wake_requested": False,
            "enqueued_at": case((requested, func.now()), else_=RUNS.c.enqueued_at),
        }
    return (
        update(RUNS)
        .where(*conditions)
        .values(
            status=status,
            status_changed_at=func.now(),
            claimed_by=None,
            lease_expires_at=None,
            **woken,
            **{name: bindparam(f"set_{name}", type_=RUNS.c[name].type) for name in shape.columns},
        )
    )


def _announced(moved: Any) -> Any:
    created = bindparam("event_created_at", type_=EVENTS.c.created_at.type)
    return insert(EVENTS).from_select(
        list(_EVENT_COLUMNS),
        select(
            bindparam("event_id", type_=EVENTS.c.id.type),
            moved.c.space_id,
            bindparam("event_type", type_=EVENTS.c.event_type.type),
            bindparam("event_source_id", type_=EVENTS.c.source_id.type),
            terminal_payload(moved),
            moved.c.chain_depth,
            func.jsonb_build_array(),
            created,
            # Recorded as dispatched to nobody when no event trigger of the space listens.
            case((moved.c.heard, null()), else_=created),
            bindparam("event_expires_at", type_=EVENTS.c.expires_at.type),
        ),
    )


def _suspended_failed(moved: Any) -> Any:
    return (
        update(RUN_STEPS)
        .where(
            RUN_STEPS.c.run_id.in_(select(moved.c.id)),
            RUN_STEPS.c.status == constant("suspended"),
        )
        .values(
            status="failed",
            error=bindparam("suspended_error", type_=RUN_STEPS.c.error.type),
            finished_at=func.now(),
        )
    )


@functools.cache
def plan_statement(shape: PlanShape) -> Any:
    """One plan shape's statement, answering the run's columns, then whether a run waits queued, whether
    an endpoint listens for the terminal event and whether an event trigger listens (both False alone,
    where the update refuses instead); built once."""
    if shape.alone:
        context: tuple[ColumnElement[Any], ...] = (false(), false())
    else:
        context = (_queued_waiting(), _endpoints_listening(shape.target))
    moved = (
        _update(shape)
        .returning(
            *RUNS.c,
            context[0].label("queued_waiting"),
            context[1].label("endpoints_listening"),
            _triggers_listening(shape.listening_types).label("heard"),
        )
        .cte("moved")
    )
    statement = select(
        *(moved.c[key] for key in RUN_COLUMNS),
        moved.c.queued_waiting,
        moved.c.endpoints_listening,
        moved.c.heard,
    )
    if shape.announce:
        statement = statement.add_cte(_announced(moved).cte("announced"))
    if shape.fail_suspended:
        statement = statement.add_cte(_suspended_failed(moved).cte("suspended_failed"))
    if shape.with_end:
        statement = statement.add_cte(end_statement().cte("step_end"))
    return statement


def plan_params(plan: RunPlan) -> dict[str, Any]:
    """The bound values of a plan's statement; refuses sources the plan's edge does not leave from."""
    stray = plan.sources - plan.edge.sources
    if stray or not plan.sources:
        source = min(stray) if stray else None
        raise run_states.TransitionRefused(source, plan.edge.target, plan.edge)
    params: dict[str, Any] = {
        "plan_run_id": plan.run_id,
        **{f"set_{name}": value for name, value in plan.values.items()},
    }
    if plan.attempt is not None:
        params["plan_attempt"] = plan.attempt
    if plan.step_end is not None:
        params.update(plan.step_end.params())
    if plan.event is not None:
        params.update(
            event_id=plan.event.id,
            event_type=plan.event.event_type,
            event_source_id=plan.event.source_id,
            event_created_at=plan.event.created_at,
            event_expires_at=plan.event.expires_at,
        )
    if plan.fail_suspended is not None:
        params["suspended_error"] = plan.fail_suspended
    return params
