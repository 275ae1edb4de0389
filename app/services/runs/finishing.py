"""Finishing a claim: the executor's outcome becomes one conditional update, shaped by named rules.

The outcome names a transition of the run-state table (`OUTCOME_TRANSITIONS`). Each rule in
`FINISH_POLICY` says which target statuses it acts on; in order, `before` contributes the columns the
update writes, and once the update has taken (the claim still held the run), `after` does the
consequences in the same transaction: a re-enqueue, the terminal event, a promotion.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import Enum
from typing import Any, Protocol

from app import jobs, metrics
from app.definitions import run_states
from app.definitions.run_states import RunStatus, Transition
from app.engine.executor import Outcome
from app.persistence.autocommit import AutocommitWrites
from app.persistence.models import DomainEvent, Run
from app.persistence.repositories.run_finish import FinishedRun
from app.persistence.repositories.run_journal import StepEnd
from app.persistence.repositories.runs import RunRepository
from app.persistence.types import AsyncSession
from app.security.redaction import redact
from app.security.truncation import truncate_json
from app.services.outbound.outbox import record_run_finished
from app.services.runs.limits import EXECUTE_TASK, DispatchLimits
from app.services.runs.promotion import promoter, slot_freed_by
from app.services.triggers.events import event_service, listening_types

DISPLAY_BYTES = 10 * 1024

# The executor's outcome -> the edge that records it. `lease_lost` has none: the claim is gone, and
# whoever holds the run now finishes it.
OUTCOME_TRANSITIONS: Mapping[str, Transition] = {
    "succeeded": run_states.SUCCEED,
    "failed": run_states.FAIL,
    "timed_out": run_states.TIME_OUT,
    "cancelled": run_states.STOP,
    "retry_later": run_states.RETRY_LATER,
    "suspended": run_states.SUSPEND,
}


def for_display(value: Any) -> Any:
    """What run records show: secrets redacted, at most 10 KB, cut structurally."""
    return truncate_json(redact(value), DISPLAY_BYTES)


@dataclass
class Finish:
    """One claim's ending, as the rules see it."""

    run: Run
    outcome: Outcome
    transition: Transition
    now: datetime
    limits: DispatchLimits
    values: dict[str, Any] = field(default_factory=dict)
    queued_waiting: bool = True
    """Whether a queued run existed when the update took (read by the same statement)."""
    endpoints_listening: bool = True
    """Whether a webhook endpoint listened for the terminal event then (read by the same statement)."""
    triggers_listening: bool = True
    """Whether an event trigger of the space listened for the terminal event then (same statement)."""
    announced: DomainEvent | None = None
    """The terminal event, when the finishing statement wrote it itself (`finish_alone`)."""

    @property
    def target(self) -> RunStatus:
        return self.transition.target


class FinishRule(Protocol):
    name: str
    # The target statuses this rule acts on.
    applies_to: frozenset[RunStatus]
    # Whether `after` may follow a finish made alone (`finish_alone`: one autocommit statement, no
    # transaction to write in). A rule whose consequences write must say False, or make the finishing
    # statement refuse when they are due, as `publish_terminal` and `promote_queued` do.
    follows_alone: bool

    def before(self, finish: Finish) -> None:
        """Add the columns this rule writes to `finish.values`."""
        ...

    async def after(self, session: AsyncSession, finish: Finish, finished: Run) -> None:
        """What follows once the update has taken, in the same transaction."""
        ...


class _Rule:
    """No-op hooks, so a rule writes only the one it needs; without an `after`, nothing to follow."""

    follows_alone = True

    def before(self, finish: Finish) -> None:
        return None

    async def after(self, session: AsyncSession, finish: Finish, finished: Run) -> None:
        return None


class ScheduleRetry(_Rule):
    """A backoff too long to sleep: back to pending until `retry_at`, with a delayed wake-up."""

    name = "schedule_retry"
    applies_to = frozenset({RunStatus.pending})
    # A wake-up only: it joins the caller's job scope, sent after the statement.
    follows_alone = True

    def before(self, finish: Finish) -> None:
        delay = timedelta(seconds=finish.outcome.retry_in_seconds)
        finish.values.update(retry_at=finish.now + delay, enqueued_at=finish.now)

    async def after(self, session: AsyncSession, finish: Finish, finished: Run) -> None:
        jobs.enqueue(
            EXECUTE_TASK, str(finished.id), queue=finished.queue, countdown=finish.outcome.retry_in_seconds
        )


class StampFinished(_Rule):
    name = "stamp_finished"
    applies_to = run_states.TERMINAL

    def before(self, finish: Finish) -> None:
        finish.values["finished_at"] = finish.now


class RecordOutput(_Rule):
    name = "record_output"
    applies_to = frozenset({RunStatus.succeeded})

    def before(self, finish: Finish) -> None:
        finish.values["output"] = for_display(finish.outcome.output)


class RecordError(_Rule):
    name = "record_error"
    applies_to = run_states.TERMINAL

    def before(self, finish: Finish) -> None:
        if finish.outcome.error is not None:
            finish.values["error"] = redact(finish.outcome.error)


class CancelReason(_Rule):
    name = "cancel_reason"
    applies_to = frozenset({RunStatus.cancelled})

    def before(self, finish: Finish) -> None:
        finish.values["reason"] = "cancelled by request"


class PublishTerminal(_Rule):
    """`automation.run.<status>`, committed with the status change."""

    name = "publish_terminal"
    applies_to = run_states.TERMINAL
    # The statement alone writes the event itself and refuses when a delivery is owed.
    follows_alone = True

    async def after(self, session: AsyncSession, finish: Finish, finished: Run) -> None:
        await publish_terminal(
            session,
            finished,
            endpoints_listening=finish.endpoints_listening,
            triggers_listening=finish.triggers_listening,
            announced=finish.announced,
        )


class PromoteQueued(_Rule):
    """A finished run frees a slot: the oldest eligible queued run may start."""

    name = "promote_queued"
    applies_to = run_states.TERMINAL
    # The statement alone refuses when a run waits queued; `finish_alone` is not tried under a cap.
    follows_alone = True

    async def after(self, session: AsyncSession, finish: Finish, finished: Run) -> None:
        # Under a global cap the promoter's lock orders it after a fire that is queueing a run right
        # now (unseen by the finishing statement): it must run. Without one, no queued run seen means
        # nothing to promote; a run queued meanwhile is promoted by the next finish or beat's tick.
        if finish.queued_waiting or finish.limits.max_concurrent_runs > 0:
            await promoter.promote(session, finish.limits, reason=slot_freed_by(finished.id))


FINISH_POLICY: tuple[FinishRule, ...] = (
    ScheduleRetry(),
    StampFinished(),
    RecordOutput(),
    RecordError(),
    CancelReason(),
    PublishTerminal(),
    PromoteQueued(),
)


def finish_values(finish: Finish, policy: Sequence[FinishRule] = FINISH_POLICY) -> dict[str, Any]:
    """The columns the finishing update writes, from every rule that acts on the target, in order."""
    for rule in policy:
        if finish.target in rule.applies_to:
            rule.before(finish)
    return finish.values


class NeedsTransaction(Enum):
    """`finish_alone`'s answer when the finish needs a transaction: nothing but the step end was written."""

    marker = "needs_transaction"


NEEDS_TRANSACTION = NeedsTransaction.marker


def _finish_of(
    run: Run, outcome: Outcome, limits: DispatchLimits, now: datetime, policy: Sequence[FinishRule]
) -> Finish | None:
    transition = OUTCOME_TRANSITIONS.get(outcome.status)
    if transition is None:
        return None
    finish = Finish(run, outcome, transition, now, limits)
    finish_values(finish, policy)
    return finish


async def _followed(
    session: AsyncSession, finish: Finish, update: FinishedRun, policy: Sequence[FinishRule]
) -> Run:
    """What follows an update that took: the metrics, then each rule's consequences."""
    finished = update.run
    finish.queued_waiting = update.queued_waiting
    finish.endpoints_listening = update.endpoints_listening
    finish.triggers_listening = update.triggers_listening
    if finished.status in run_states.TERMINAL:
        started = finished.started_at
        ended = finished.finished_at or finish.now
        metrics.run_finished(
            RunStatus(finished.status).value, (ended - started).total_seconds() if started else None
        )
    for rule in policy:
        if finish.target in rule.applies_to:
            await rule.after(session, finish, finished)
    return finished


async def finish_claim(
    session: AsyncSession,
    run: Run,
    outcome: Outcome,
    limits: DispatchLimits,
    now: datetime,
    policy: Sequence[FinishRule] = FINISH_POLICY,
    *,
    step_end: StepEnd | None = None,
) -> Run | None:
    """Record how this claim ended, in the caller's transaction; None when there is nothing to record
    or the claim was lost.

    `step_end`, the claim's last attempt end still to write, goes in the same statement (written even
    when the claim was lost).
    """
    finish = _finish_of(run, outcome, limits, now, policy)
    if finish is None:
        return None
    update = await RunRepository(session).finish_with_context(
        run.id,
        run.attempt,
        finish.transition,
        finish.values,
        step_end=step_end,
        event_types=listening_types(f"automation.run.{finish.target}"),
    )
    if update is None:
        return None
    return await _followed(session, finish, update, policy)


async def finish_alone(
    session: AsyncSession,
    run: Run,
    outcome: Outcome,
    limits: DispatchLimits,
    now: datetime,
    policy: Sequence[FinishRule] = FINISH_POLICY,
    *,
    step_end: StepEnd | None = None,
) -> Run | NeedsTransaction | None:
    """`finish_claim` as one statement on an autocommit connection, for the common finish: the update,
    the step end and the terminal event together, with no BEGIN, COMMIT or statement of their own.

    The statement takes only when no consequence needs more: no run waits queued, no global cap and, for
    a live run, no webhook endpoint listening and no callback. Otherwise, or when the claim was lost,
    the answer is `NEEDS_TRANSACTION` and `finish_claim` in a transaction does the finish (or finds it
    lost). The wake-ups it queues go to the caller's job scope: the statement is durable once it returns.
    """
    finish = _finish_of(run, outcome, limits, now, policy)
    if finish is None:
        return None
    terminal = finish.target in run_states.TERMINAL
    # Only a live run announces its end (`publish_terminal`): an event, deliveries, its callback.
    announces = terminal and run.mode == "live"
    if (terminal and limits.max_concurrent_runs > 0) or (announces and run.callback_url):
        return NEEDS_TRANSACTION
    if not all(rule.follows_alone for rule in policy if finish.target in rule.applies_to):
        return NEEDS_TRANSACTION
    event_type = f"automation.run.{finish.target}"
    if announces:
        finish.announced = event_service.prepare(
            run.space_id, event_type, str(run.automation_id), chain_depth=run.chain_depth
        )
    update = await RunRepository(session).finish_alone(
        run.id,
        run.attempt,
        finish.transition,
        finish.values,
        step_end=step_end,
        event_types=listening_types(event_type),
        event=finish.announced,
    )
    if update is None:
        return NEEDS_TRANSACTION
    return await _followed(session, finish, update, policy)


async def end_claim(
    writes: AutocommitWrites,
    run: Run,
    outcome: Outcome,
    limits: DispatchLimits,
    now: datetime,
    *,
    step_end: StepEnd | None = None,
) -> Run | None:
    """How a worker records its claim's end on the claim's connection: `finish_alone` when it takes,
    else `finish_claim` in a transaction. Wake-ups go to the caller's job scope either way."""
    async with writes.last_write() as session:
        finished = await finish_alone(session, run, outcome, limits, now, step_end=step_end)
    if finished is not NEEDS_TRANSACTION:
        return finished
    async with writes.transaction() as session:
        return await finish_claim(session, run, outcome, limits, now, step_end=step_end)


async def publish_terminal(
    session: AsyncSession,
    run: Run,
    *,
    endpoints_listening: bool = True,
    triggers_listening: bool = True,
    announced: DomainEvent | None = None,
) -> None:
    """`automation.run.<status>`: what other automations chain on, and the webhook deliveries it owes.

    A dry or verify run announces nothing: no event to chain on, no completion webhook, no callback.
    What the statement that finished the run found saves work here: `endpoints_listening` False skips
    the endpoint lookup (the run's own callback is owed either way); `triggers_listening` False records
    the event as dispatched to nobody instead of waking a dispatcher to find that out. `announced`: the
    finishing statement wrote the event itself; only its dispatcher's wake-up is left.
    """
    if run.mode != "live":
        return
    if endpoints_listening or run.callback_url:
        await record_run_finished(session, run, endpoints_listening=endpoints_listening)
    if announced is not None:
        event_service.announce(announced, heard=triggers_listening)
        return
    await event_service.publish(
        session,
        run.space_id,
        f"automation.run.{run.status}",
        {
            "automation_id": str(run.automation_id),
            "run_id": str(run.id),
            "status": run.status,
            "output": run.output,
            "error": run.error,
        },
        str(run.automation_id),
        chain_depth=run.chain_depth,
        heard=triggers_listening,
    )
