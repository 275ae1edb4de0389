"""The rules that follow an edge of the run-state table, in order (`RUN_POLICY`).

Every status change after creation applies the same policy, whoever proposes it: a claim's end, a cancel
request, an approval's decision or expiry, recovery of an expired lease. Each rule is small, named and
testable alone; `plan` contributes to what is written with the status change, `follow` does what comes
after it.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from app import jobs, metrics
from app.definitions import run_states
from app.definitions.run_states import RunStatus
from app.persistence.types import AsyncSession
from app.persistence.writer import RunPlan, Written
from app.security.redaction import redact
from app.security.truncation import truncate_json
from app.services.governance.call_expiry import expire_pending_calls
from app.services.outbound.outbox import record_run_finished

# The promoter moves runs through the door this policy belongs to: both sides import the other's module.
from app.services.runs import promotion, waking
from app.services.runs.limits import EXECUTE_TASK
from app.services.runs.moves import Move, MoveRule, Rule
from app.services.triggers.events import event_service, listening_types

DISPLAY_BYTES = 10 * 1024
CANCELLED_BY_REQUEST = "cancelled by request"


def for_display(value: Any) -> Any:
    """What run records show: secrets redacted, at most 10 KB, cut structurally."""
    return truncate_json(redact(value), DISPLAY_BYTES)


class ScheduleWakeUp(Rule):
    """Back to pending means a wake-up: at once (resume, release) or, for a backoff too long to sleep,
    after it (`retry_at`, with a delayed wake-up)."""

    name = "schedule_wake_up"
    applies_to = frozenset({RunStatus.pending})

    def _delay(self, move: Move) -> float | None:
        outcome = move.outcome
        return outcome.retry_in_seconds if outcome is not None and outcome.status == "retry_later" else None

    def plan(self, move: Move, plan: RunPlan) -> None:
        delay = self._delay(move)
        retry_at = move.now + timedelta(seconds=delay) if delay is not None else None
        plan.values.update(retry_at=retry_at, enqueued_at=move.now)

    async def follow(self, session: AsyncSession, move: Move, written: Written) -> None:
        jobs.enqueue(EXECUTE_TASK, str(written.run.id), queue=written.run.queue, countdown=self._delay(move))


class WakeOnWait(Rule):
    """A claim's wait that a wake-up overtook (`wake_requested`) wrote pending instead (the writer's
    `wait` statement): it needs its wake-up like any other run back to pending."""

    name = "wake_on_wait"
    applies_to = frozenset({RunStatus.waiting})

    async def follow(self, session: AsyncSession, move: Move, written: Written) -> None:
        if written.run.status is RunStatus.pending:
            jobs.enqueue(EXECUTE_TASK, str(written.run.id), queue=written.run.queue)


class ShiftDeadline(Rule):
    """Time spent waiting does not count against the run's timeout: a wake moves the run's deadline
    later by how long it waited (since its status last moved, to waiting)."""

    name = "shift_deadline"
    applies_to = frozenset({RunStatus.pending})

    def plan(self, move: Move, plan: RunPlan) -> None:
        run = move.run
        if move.edge is run_states.WAKE and run.deadline_at is not None and run.status_changed_at is not None:
            plan.values["deadline_at"] = run.deadline_at + max(move.now - run.status_changed_at, timedelta(0))


class RecordPromotion(Rule):
    """A queued run promoted to pending records when and why (`promotion_reason`); its queue reason goes."""

    name = "record_promotion"
    applies_to = frozenset({RunStatus.pending})

    def plan(self, move: Move, plan: RunPlan) -> None:
        if move.edge is run_states.PROMOTE:
            plan.values.update(reason=None, promoted_at=move.now, promotion_reason=move.reason)


class StampFinished(Rule):
    name = "stamp_finished"
    applies_to = run_states.TERMINAL

    def plan(self, move: Move, plan: RunPlan) -> None:
        plan.values["finished_at"] = move.now


class RecordOutput(Rule):
    name = "record_output"
    applies_to = frozenset({RunStatus.succeeded})

    def plan(self, move: Move, plan: RunPlan) -> None:
        plan.values["output"] = for_display(move.outcome.output if move.outcome is not None else None)


class RecordError(Rule):
    name = "record_error"
    applies_to = run_states.TERMINAL

    def plan(self, move: Move, plan: RunPlan) -> None:
        error = move.outcome.error if move.outcome is not None else move.error
        if error is not None:
            plan.values["error"] = redact(error)


class FailPausedStep(Rule):
    """A run that ends on a paused call (its approval expired): the step failed, and so do its
    suspended records, in the same statement."""

    name = "fail_paused_step"
    applies_to = frozenset({RunStatus.failed})

    def plan(self, move: Move, plan: RunPlan) -> None:
        if move.failed_step_id is not None:
            plan.values["failed_step_id"] = move.failed_step_id
            plan.fail_suspended = redact(move.error) if move.error is not None else None


class RecordReason(Rule):
    """Why the run ended: a cancel by request, or the mover's reason."""

    name = "record_reason"
    applies_to = run_states.TERMINAL

    def plan(self, move: Move, plan: RunPlan) -> None:
        if move.target is RunStatus.cancelled:
            plan.values["reason"] = CANCELLED_BY_REQUEST
        elif move.reason is not None:
            plan.values["reason"] = move.reason
        if move.edge is run_states.CANCEL:
            # A cancel leaves its request on the row like a stop does (the run page shows both alike).
            plan.values["cancel_requested"] = True


class ExpirePendingCalls(Rule):
    """A cancelled run's pending calls expire: nothing will run them."""

    name = "expire_pending_calls"
    applies_to = frozenset({RunStatus.cancelled})

    def plan(self, move: Move, plan: RunPlan) -> None:
        if move.run.status is RunStatus.awaiting_approval:
            plan.alone = False

    async def follow(self, session: AsyncSession, move: Move, written: Written) -> None:
        if move.run.status is RunStatus.awaiting_approval:
            await expire_pending_calls(session, written.run.id, move.now)


class CancelChildren(Rule):
    """A cancelled run's child runs that have not finished are cancelled too (or asked to stop), and its
    open waits close: whichever edge cancelled it. A waiting parent is cancelled by the request itself
    (`cancel`); a running one by its worker at the next step boundary (`stop`), and a child it started
    without waiting (`wait: false`) or from a loop's other iteration must not outlive it."""

    name = "cancel_children"
    applies_to = frozenset({RunStatus.cancelled})

    def plan(self, move: Move, plan: RunPlan) -> None:
        plan.alone = False

    async def follow(self, session: AsyncSession, move: Move, written: Written) -> None:
        await waking.waker.cancel_children(session, written.run, move.now, move.limits)


class WakeParent(Rule):
    """A child run's end satisfies its parent's wait for it (status, output, error), adds its spend to
    the parent's, and wakes the parent: in the transaction that finishes the child."""

    name = "wake_parent"
    applies_to = run_states.TERMINAL

    def plan(self, move: Move, plan: RunPlan) -> None:
        if move.run.parent_run_id is not None:
            plan.alone = False

    async def follow(self, session: AsyncSession, move: Move, written: Written) -> None:
        if written.run.parent_run_id is not None:
            await waking.waker.child_ended(session, written.run, move.now, move.limits)


class PublishTerminal(Rule):
    """`automation.run.<status>`, written by the plan's statement from the row it updates, and the
    webhook deliveries it owes (the outbox), in the same transaction. A dry or verify run announces
    nothing: no event to chain on, no completion webhook, no callback."""

    name = "publish_terminal"
    applies_to = run_states.TERMINAL

    def plan(self, move: Move, plan: RunPlan) -> None:
        run = move.run
        if run.mode != "live":
            return
        event_type = f"automation.run.{move.target}"
        plan.event = event_service.prepare(
            run.space_id, event_type, str(run.automation_id), chain_depth=run.chain_depth
        )
        plan.listening_types = tuple(listening_types(event_type))
        if run.callback_url:
            plan.alone = False

    async def follow(self, session: AsyncSession, move: Move, written: Written) -> None:
        event = move.plan.event if move.plan is not None else None
        if event is None:
            return
        finished = written.run
        if written.endpoints_listening or finished.callback_url:
            await record_run_finished(session, finished, endpoints_listening=written.endpoints_listening)
        event_service.announce(event, heard=written.triggers_listening)


class PromoteQueued(Rule):
    """A finished run frees a slot: the first eligible queued run (priority, then age) may start."""

    name = "promote_queued"
    applies_to = run_states.TERMINAL

    def plan(self, move: Move, plan: RunPlan) -> None:
        # Under a global cap the promoter's lock orders it after a fire that is queueing a run right now
        # (unseen by the plan's statement): it must run, in a transaction.
        if move.limits.max_concurrent_runs > 0:
            plan.alone = False

    async def follow(self, session: AsyncSession, move: Move, written: Written) -> None:
        # Without a cap, no queued run seen means nothing to promote; a run queued meanwhile is promoted
        # by the next finish or beat's tick.
        if written.queued_waiting or move.limits.max_concurrent_runs > 0:
            await promotion.promoter.promote(
                session, move.limits, reason=promotion.slot_freed_by(written.run.id)
            )


class CountFinished(Rule):
    """The run-duration metric of a finished run."""

    name = "count_finished"
    applies_to = run_states.TERMINAL

    async def follow(self, session: AsyncSession, move: Move, written: Written) -> None:
        finished = written.run
        started, ended = finished.started_at, finished.finished_at or move.now
        metrics.run_finished(
            RunStatus(finished.status).value, (ended - started).total_seconds() if started else None
        )


RUN_POLICY: tuple[MoveRule, ...] = (
    WakeOnWait(),
    ShiftDeadline(),
    ScheduleWakeUp(),
    RecordPromotion(),
    StampFinished(),
    RecordOutput(),
    RecordError(),
    FailPausedStep(),
    RecordReason(),
    ExpirePendingCalls(),
    CancelChildren(),
    WakeParent(),
    PublishTerminal(),
    PromoteQueued(),
    CountFinished(),
)
