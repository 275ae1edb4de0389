"""Executing one claim of a run: claim, resume, walk the plan, record every attempt, finish.

The lease, the conditional claim and the attempt counter in the database decide who runs what; the
broker's delivery guarantees are not relied on. The claim holds one connection in autocommit mode:
the claim itself and each record is one statement there, durable when it returns (`RunJournal`).
The finish goes through the run's one door (`transition`): one statement there too when nothing else
must commit with it, else a transaction on the same connection.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from app.definitions.automation import AutomationDefinition, Step
from app.definitions.plan_tree import action_steps
from app.definitions.run_modes import as_llm_mode, as_run_mode
from app.engine.capabilities import CapabilityPipeline
from app.engine.capabilities.governance import Governance
from app.engine.caps import effective_caps
from app.engine.claim_ports import Outcome, Resume, SystemClock
from app.engine.context import ActionContext, RunLimits
from app.engine.executor import Executor
from app.engine.steps import on_failure_reserve
from app.integrations.llm import load_off_loop
from app.persistence.autocommit import AutocommitWrites, OpenClaimWrites
from app.persistence.base import utcnow
from app.persistence.models import Run, RunStep
from app.persistence.repositories.runs import RunRepository, RunStepRepository
from app.registry import ActionResolver
from app.registry.ports import Ports
from app.security.redaction import redact
from app.services.governance.approvals import approval_service
from app.services.governance.modes import governance_service
from app.services.runs import transition as transitions
from app.services.runs.definition_cache import parsed_definition
from app.services.runs.finishing import OUTCOME_TRANSITIONS, finish_claim
from app.services.runs.journal import RunJournal
from app.services.runs.lease import lease_renewed
from app.services.runs.limits import DispatchLimits
from app.services.runs.waits import child_budget

NOT_CLAIMED = "not_claimed"
"""A claim's answer when it took no run: another claim has it, it moved on, or none was pending."""
PortsFactory = Callable[[Run, AutocommitWrites], Ports]
"""(the claimed run, the claim's connection) → the ports of its action contexts."""


class WakeQueue(Protocol):
    """A wake-up on a run queue naming a run already claimed (its claim goes on with the next pending
    run), unless one already waits there; with `always`, even then."""

    def __call__(self, queue: str, run_id: uuid.UUID, *, always: bool = False) -> Awaitable[object]: ...


@dataclass(frozen=True)
class ExecutionSettings:
    worker: str
    lease: timedelta = timedelta(seconds=30)
    limits: DispatchLimits = field(default_factory=DispatchLimits)
    # The share of a run's timeout (with its floor) kept for on_failure steps when the plan runs late.
    on_failure_reserve_fraction: float = 0.1
    on_failure_reserve_min_seconds: float = 5.0
    # Runs a task claims straight from the table after its own (`execute_and_continue`); 0 = none.
    direct_claims: int = 0

    def on_failure_reserve(self, definition: AutomationDefinition) -> timedelta:
        """The time a run of this definition keeps back for its on_failure steps."""
        seconds = on_failure_reserve(
            definition.execution.timeout_seconds,
            self.on_failure_reserve_fraction,
            self.on_failure_reserve_min_seconds,
        )
        return timedelta(seconds=seconds)


@dataclass(frozen=True)
class ExecutionDeps:
    """What a process's composition hands the run service: the pipeline, the actions, the ports."""

    pipeline: CapabilityPipeline
    actions: ActionResolver
    """Resolved for the run's space at each claim: a plugin the space disabled has no actions there."""
    ports: PortsFactory
    wake_queue: WakeQueue | None = None
    """Set where fires coalesce run wake-ups: how a drain (`execute_and_continue`) keeps one waiting."""


def resume_from(run: Run, records: list[RunStep]) -> Resume:
    """What earlier claims did: done steps and their outputs by path, attempts used, the last failure of
    each step not done, the item list of each loop not done (the first one recorded), and whether the
    plan failed.

    A suspended attempt is not used up: the next claim runs that attempt again, so its calls get the
    same identities and the suspended one is recognised. Records come oldest first.
    """
    resume = Resume(plan_error=run.error if run.failed_step_id else None, failed_step_id=run.failed_step_id)
    for record in records:
        key = (record.phase, record.path)
        if record.status in ("succeeded", "skipped"):
            resume.done.add(key)
            if record.status == "succeeded":
                resume.outputs[key] = record.output_full
        else:
            if record.loop_items is not None:
                resume.items.setdefault(key, record.loop_items)
            used = record.attempt - 1 if record.status == "suspended" else record.attempt
            resume.failed_attempts[key] = max(resume.failed_attempts.get(key, 0), used)
            if record.status == "failed" and record.error is not None:
                resume.failures[key] = record.error
    for key in resume.done:
        resume.failed_attempts.pop(key, None)
        resume.failures.pop(key, None)
        resume.items.pop(key, None)
    return resume


def run_variables(run: Run, definition: AutomationDefinition) -> dict[str, Any]:
    """The template context: `run.*`, `inputs`, `trigger` (step outputs are added as they bind)."""
    return {
        "run": {
            "id": str(run.id),
            "started_at": run.started_at.isoformat() if run.started_at else None,
            "automation_id": str(run.automation_id),
            "automation_name": definition.name,
            "automation_version": run.automation_version,
            "trigger_type": run.trigger_type,
            "trigger_id": str(run.trigger_id) if run.trigger_id else None,
            "space_id": str(run.space_id),
            "creator_id": str(run.created_by) if run.created_by else None,
            "attempt": run.attempt,
        },
        "inputs": run.inputs,
        "trigger": run.trigger_payload,
    }


@dataclass(frozen=True)
class _Claimed:
    run: Run
    definition: AutomationDefinition
    resume: Resume
    deadline: datetime
    deadline_saved: bool
    suspended: dict[tuple[str, str, int], tuple[uuid.UUID, datetime]]
    """(phase, path, attempt) → (record, started at) of attempts an earlier claim suspended."""
    governance: Governance
    paused: dict[tuple[str, int], dict[str, Any]]
    """(path, attempt) → what a suspended attempt saved, for the attempt that continues it."""


def _calls_a_model(definition: AutomationDefinition) -> bool:
    """Whether a step of the plan names an LLM model (LLM actions and agents do)."""
    steps = action_steps(definition)
    return any(isinstance(step.config, dict) and "model" in step.config for step in steps)


class ExecutionService:
    async def execute(
        self,
        open_writes: OpenClaimWrites,
        which: uuid.UUID | transitions.NextPending,
        settings: ExecutionSettings,
        deps: ExecutionDeps,
        *,
        fan_out: bool = False,
    ) -> str:
        """Run one claim of the run `which` names (or of the next pending run of its queues); the answer
        says how it ended ("not_claimed" if it was not ours, or none was pending). With `fan_out`, a
        direct claim that took a run while another is pending leaves a wake-up waiting on its queue
        (`deps.wake_queue`) before walking it.

        Every write of the claim goes through the one connection `open_writes` opens: its records one
        statement each, its finish alone or as a transaction there; the wake-ups leave after the block.
        """
        async with open_writes() as writes:
            claimed = await self._claim(writes, which, settings)
            if claimed is None:
                return NOT_CLAIMED
            run = claimed.run
            if fan_out and deps.wake_queue is not None and isinstance(which, transitions.NextPending):
                async with writes.write() as session:
                    more = await RunRepository(session).pending_waits(which.queues, utcnow())
                if more:
                    await deps.wake_queue(run.queue, run.id)
            journal = RunJournal(
                writes.write,
                run.id,
                run.attempt,
                claimed.suspended,
                deadline=None if claimed.deadline_saved else claimed.deadline,
            )
            # The lease is renewed from before the first step's preparations: loading the model
            # client alone can take longer than a short lease.
            async with lease_renewed(writes, run, settings.lease, journal):
                outcome = await self._walk(claimed, journal, writes, settings, deps)
            if outcome.status not in OUTCOME_TRANSITIONS:
                # Nothing to finish (the claim was lost): the last attempt's end is still ours to write,
                # and an approval asked for just before the loss is withdrawn.
                await journal.flush()
                if journal.unheeded_calls:
                    async with writes.transaction() as session:
                        for call_key in journal.unheeded_calls:
                            await approval_service.withdraw(session, run.id, call_key)
                return outcome.status
            # A suspended claim moves the run to awaiting_approval (the table's `suspend` edge): the
            # lease and the worker are released, and only a decision puts it back to pending. The last
            # attempt's end is written by the same statement as the run's new status.
            await finish_claim(
                writes, run, outcome, settings.limits, utcnow(), step_end=await journal.take_ended()
            )
        return outcome.status

    async def execute_and_continue(
        self,
        open_writes: OpenClaimWrites,
        run_id: uuid.UUID,
        queues: tuple[str, ...],
        settings: ExecutionSettings,
        deps: ExecutionDeps,
        stopping: Callable[[], bool] = lambda: False,
    ) -> list[str]:
        """Run the claim of `run_id`, then up to `settings.direct_claims` more claims of the next pending
        runs of `queues`, one after another, each exactly as a wake-up's claim (its own connection, its
        wake-ups sent after it); the answers in order.

        A message is a wake-up for its queue: a run taken this way may still have its own message on
        the broker, and such a stale message, whose run is already taken, goes on with the next pending
        run rather than leaving it behind a line of messages that do nothing. It stops at the first
        claim that finds nothing pending, and once `stopping()` says the worker is shutting down (it
        finishes what it holds and takes nothing new).

        Where fires coalesce their wake-ups (`deps.wake_queue` is set: a run may be pending with no
        message of its own, because one already waited on its queue), any run committed before a waiting
        message was seen must be claimed by the drain of whoever takes that message. So a drain stops
        without leaving a message only when it found nothing pending: once its batch is used up it sends
        one for its own way back, and once its worker is stopping it leaves one waiting for another. Its
        first direct claim, while another run is pending, also leaves one waiting before its run is
        walked, so that an idle process joins the drain (and does the same).
        """
        answers = [await self.execute(open_writes, run_id, settings, deps)]
        wake = deps.wake_queue
        if not queues:
            return answers
        for index in range(settings.direct_claims):
            if stopping():
                if wake is not None:
                    for queue in queues:
                        await wake(queue, run_id)
                break
            answer = await self.execute(
                open_writes, transitions.NextPending(queues), settings, deps, fan_out=index == 0
            )
            if answer == NOT_CLAIMED:
                break
            answers.append(answer)
        else:
            if wake is not None:
                for queue in queues:
                    await wake(queue, run_id, always=True)
        return answers

    async def _walk(
        self,
        claimed: _Claimed,
        journal: RunJournal,
        writes: AutocommitWrites,
        settings: ExecutionSettings,
        deps: ExecutionDeps,
    ) -> Outcome:
        run, definition, paused = claimed.run, claimed.definition, claimed.paused
        if _calls_a_model(definition):
            # litellm is imported on first use, on a thread, while the lease renewal goes on.
            await load_off_loop()
        ports = deps.ports(run, writes)

        policy = definition.execution
        caps = effective_caps(policy, settings.limits.caps)
        limits = RunLimits(
            budget_cap_usd=child_budget(policy.budget_cap_usd, run),
            max_llm_tokens=int(caps.run_tokens.value),
            daily_cost_cap_usd=caps.daily_cost_usd.value,
        )

        def context(
            step: Step, path: str, run_vars: dict[str, Any], timeout: float, attempt: int
        ) -> ActionContext:
            return ActionContext(
                space_id=str(run.space_id),
                run=run_vars,
                step_id=step.step_id,
                step_path=path,
                ports=ports,
                pipeline=deps.pipeline,
                timeout_seconds=timeout,
                limits=limits,
                max_retries=step.max_retries if step.max_retries is not None else policy.max_retries,
                attempt=attempt,
                mode=as_run_mode(run.mode),
                llm=as_llm_mode(run.llm_mode),
                governance=claimed.governance,
                resumed=paused.pop((path, attempt), None),
            )

        executor = Executor(
            actions=await deps.actions.for_space(str(run.space_id)),
            journal=journal,
            context_factory=context,
            clock=SystemClock(),
            scrub=redact,
        )
        return await executor.run(
            definition,
            run_variables(run, definition),
            claimed.resume,
            claimed.deadline,
            reserve=settings.on_failure_reserve(definition),
        )

    async def _claim(
        self,
        writes: AutocommitWrites,
        which: uuid.UUID | transitions.NextPending,
        settings: ExecutionSettings,
    ) -> _Claimed | None:
        async with writes.write() as session:
            now = utcnow()
            claim = await transitions.claim(session, which, settings.worker, settings.lease, now)
            if claim is None:
                return None
            run = claim.run
            # The snapshot is the document of (automation, version): the fire path's cache entry.
            definition = parsed_definition(run.automation_id, run.automation_version, run.definition)
            # Fixed by the first claim's start, so every claim computes the same one; it is written with
            # the claim's first step rather than by a statement of its own.
            deadline = run.deadline_at or (run.started_at or now) + timedelta(
                seconds=definition.execution.timeout_seconds
            )
            # A first claim has no step records: only a later one reads what earlier claims did.
            records = list(await RunStepRepository(session).for_run(run.id)) if run.attempt > 1 else []
            for record in records:
                if record.status == "running":  # an attempt cut short by a crash
                    record.status, record.finished_at = "failed", now
                    record.error = {
                        "code": "interrupted",
                        "message": "the worker stopped during this attempt",
                    }
            suspended = {
                (record.phase, record.path, record.attempt): (record.id, record.started_at)
                for record in records
                if record.status == "suspended"
            }
            # What each paused attempt saved (the call it paused at, an agent's transcript).
            paused = {
                (record.path, record.attempt): dict(record.suspension or {})
                for record in records
                if record.status == "suspended"
            }
            governance = await governance_service.for_claim(
                session,
                run,
                definition,
                (claim.automation_modes, claim.space_modes),
                claim.approval_grants,
            )
            resume = resume_from(run, records)
            return _Claimed(
                run=run,
                definition=definition,
                resume=resume,
                deadline=deadline,
                deadline_saved=run.deadline_at is not None,
                suspended=suspended,
                governance=governance,
                paused=paused,
            )


execution_service = ExecutionService()
