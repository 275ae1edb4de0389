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
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from app import jobs, metrics
from app.definitions import run_states
from app.definitions.run_states import RunStatus, Transition
from app.engine.executor import Outcome
from app.persistence.models import Run
from app.persistence.repositories.run_journal import StepEnd
from app.persistence.repositories.runs import RunRepository
from app.security.redaction import redact
from app.security.truncation import truncate_json
from app.services.dispatch import EXECUTE_TASK, DispatchLimits, promoter
from app.services.events import event_service, listening_types
from app.services.outbox import record_run_finished

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

    @property
    def target(self) -> RunStatus:
        return self.transition.target


class FinishRule(Protocol):
    name: str
    # The target statuses this rule acts on.
    applies_to: frozenset[RunStatus]

    def before(self, finish: Finish) -> None:
        """Add the columns this rule writes to `finish.values`."""
        ...

    async def after(self, session: AsyncSession, finish: Finish, finished: Run) -> None:
        """What follows once the update has taken, in the same transaction."""
        ...


class _Rule:
    """No-op hooks, so a rule writes only the one it needs."""

    def before(self, finish: Finish) -> None:
        return None

    async def after(self, session: AsyncSession, finish: Finish, finished: Run) -> None:
        return None


class ScheduleRetry(_Rule):
    """A backoff too long to sleep: back to pending until `retry_at`, with a delayed wake-up."""

    name = "schedule_retry"
    applies_to = frozenset({RunStatus.pending})

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

    async def after(self, session: AsyncSession, finish: Finish, finished: Run) -> None:
        await publish_terminal(
            session,
            finished,
            endpoints_listening=finish.endpoints_listening,
            triggers_listening=finish.triggers_listening,
        )


class PromoteQueued(_Rule):
    """A finished run frees a slot: the oldest eligible queued run may start."""

    name = "promote_queued"
    applies_to = run_states.TERMINAL

    async def after(self, session: AsyncSession, finish: Finish, finished: Run) -> None:
        # Under a global cap the promoter's lock orders it after a fire that is queueing a run right
        # now (unseen by the finishing statement): it must run. Without one, no queued run seen means
        # nothing to promote; a run queued meanwhile is promoted by the next finish or beat's tick.
        if finish.queued_waiting or finish.limits.max_concurrent_runs > 0:
            await promoter.promote(session, finish.limits)


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
    """Record how this claim ended; None when there is nothing to record or the claim was lost.

    `step_end`, the claim's last attempt end still to write, goes in the same statement (written even
    when the claim was lost).
    """
    transition = OUTCOME_TRANSITIONS.get(outcome.status)
    if transition is None:
        return None
    finish = Finish(run, outcome, transition, now, limits)
    values = finish_values(finish, policy)
    update = await RunRepository(session).finish_with_context(
        run.id,
        run.attempt,
        transition,
        values,
        step_end=step_end,
        event_types=listening_types(f"automation.run.{transition.target}"),
    )
    if update is None:
        return None
    finished = update.run
    finish.queued_waiting = update.queued_waiting
    finish.endpoints_listening = update.endpoints_listening
    finish.triggers_listening = update.triggers_listening
    if finished.status in run_states.TERMINAL:
        started = finished.started_at
        ended = finished.finished_at or now
        metrics.run_finished(
            RunStatus(finished.status).value, (ended - started).total_seconds() if started else None
        )
    for rule in policy:
        if finish.target in rule.applies_to:
            await rule.after(session, finish, finished)
    return finished


async def publish_terminal(
    session: AsyncSession, run: Run, *, endpoints_listening: bool = True, triggers_listening: bool = True
) -> None:
    """`automation.run.<status>`: what other automations chain on, and the webhook deliveries it owes.

    A dry or verify run announces nothing: no event to chain on, no completion webhook, no callback.
    What the statement that finished the run found saves work here: `endpoints_listening` False skips
    the endpoint lookup (the run's own callback is owed either way); `triggers_listening` False records
    the event as dispatched to nobody instead of waking a dispatcher to find that out.
    """
    if run.mode != "live":
        return
    await record_run_finished(session, run, endpoints_listening=endpoints_listening)
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
