"""Executing one claim of a run: claim, resume, walk the plan, record every attempt, finish.

The lease, the conditional claim and the attempt counter in the database decide who runs what; the
broker's delivery guarantees are not relied on. Each record is its own short transaction, made
durable before the executor moves on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.definitions.automation import AutomationDefinition, Step
from app.definitions.run_modes import as_llm_mode, as_run_mode
from app.definitions.run_states import RunStatus
from app.engine.capabilities import CapabilityPipeline
from app.engine.context import ActionContext, RunLimits
from app.engine.executor import ClaimLost, Executor, Outcome, Phase, Resume, SystemClock
from app.persistence.base import utcnow
from app.persistence.models import Run, RunStep
from app.persistence.repositories.runs import RunRepository, RunStepRepository
from app.registry import ActionDefinition, Registry
from app.registry.ports import Ports
from app.security.redaction import redact
from app.services.dispatch import DispatchLimits, parsed_definition
from app.services.finishing import finish_claim, for_display

logger = logging.getLogger(__name__)
UnitOfWork = Callable[[], AbstractAsyncContextManager[AsyncSession]]
PortsFactory = Callable[[Run], Ports]


@dataclass(frozen=True)
class ExecutionSettings:
    worker: str
    lease: timedelta = timedelta(seconds=30)
    limits: DispatchLimits = field(default_factory=DispatchLimits)

    @property
    def heartbeat_seconds(self) -> float:
        return max(0.5, self.lease.total_seconds() / 3)


@dataclass(frozen=True)
class ExecutionDeps:
    """What a process's composition hands the run service: the pipeline, the actions, the ports."""

    pipeline: CapabilityPipeline
    actions: Registry[ActionDefinition]
    ports: PortsFactory


class RunJournal:
    """The executor's journal for one claim: step records, cancellation and lease checks."""

    def __init__(
        self,
        uow: UnitOfWork,
        run_id: uuid.UUID,
        attempt: int,
        suspended: dict[tuple[str, int, int], uuid.UUID] | None = None,
    ) -> None:
        self.uow = uow
        self.run_id = run_id
        self.attempt = attempt
        self.lease_lost = False
        # (phase, step index, attempt) -> the record of an attempt an earlier claim suspended.
        self.suspended = dict(suspended or {})

    async def begin_step(self, phase: Phase, index: int, step: Step, attempt: int) -> uuid.UUID:
        async with self.uow() as session:
            if await RunRepository(session).held(self.run_id, self.attempt) is None:
                raise ClaimLost()
            paused_id = self.suspended.pop((phase, index, attempt), None)
            if paused_id is not None:
                # The attempt that suspended continues: same record, same attempt, same call ids.
                paused = await session.get(RunStep, paused_id)
                assert paused is not None
                paused.status, paused.finished_at, paused.duration_ms = "running", None, None
                return paused.id
            record = RunStep(
                id=uuid.uuid4(),
                run_id=self.run_id,
                phase=phase,
                step_index=index,
                step_id=step.step_id,
                action=step.action,
                attempt=attempt,
                status="running",
                started_at=utcnow(),
            )
            await RunStepRepository(session).create(record)
            return record.id

    async def finish_step(
        self,
        record: Any,
        *,
        status: str,
        config: Any = None,
        output: Any = None,
        error: dict[str, Any] | None = None,
        suppressed: list[dict[str, Any]] | None = None,
    ) -> None:
        async with self.uow() as session:
            step = await session.get(RunStep, record)
            assert step is not None
            step.status = status
            step.finished_at = utcnow()
            step.duration_ms = int((step.finished_at - step.started_at).total_seconds() * 1000)
            step.config = for_display(config) if config is not None else None
            if status == "succeeded":
                # The executor hands over the output already through `redact` (what it bound for
                # later steps), so the full copy kept for resume is scrubbed like the display one.
                step.output = for_display(output)
                step.output_full = output
            step.error = redact(error) if error else None
            step.suppressed = for_display(suppressed) if suppressed else None

    async def suspend_step(self, record: Any, *, config: Any, suspension: dict[str, Any]) -> None:
        async with self.uow() as session:
            step = await session.get(RunStep, record)
            assert step is not None
            step.status = "suspended"
            step.finished_at = utcnow()
            step.duration_ms = int((step.finished_at - step.started_at).total_seconds() * 1000)
            step.config = for_display(config) if config is not None else None
            step.suspension = redact(suspension)

    async def plan_failed(self, step_id: str, error: dict[str, Any]) -> None:
        async with self.uow() as session:
            run = await RunRepository(session).held(self.run_id, self.attempt)
            if run is None:
                raise ClaimLost()
            run.failed_step_id, run.error = step_id, redact(error)

    async def stop_reason(self) -> str | None:
        if self.lease_lost:
            return "lease_lost"
        async with self.uow() as session:
            run = await session.get(Run, self.run_id)
        if run is None or run.attempt != self.attempt or run.status is not RunStatus.running:
            return "lease_lost"
        return "cancelled" if run.cancel_requested else None


def resume_from(run: Run, records: list[RunStep], definition: AutomationDefinition) -> Resume:
    """What earlier claims did: done steps, their outputs, attempts used, and whether the plan failed.

    A suspended attempt is not used up: the next claim runs that attempt again, so its calls get the
    same identities and the suspended one is recognised.
    """
    resume = Resume(plan_error=run.error if run.failed_step_id else None, failed_step_id=run.failed_step_id)
    steps = {"plan": definition.plan, "on_failure": definition.execution.on_failure}
    for record in records:
        key = (record.phase, record.step_index)
        if record.status in ("succeeded", "skipped"):
            resume.done.add(key)
            step = (
                steps[record.phase][record.step_index]
                if record.step_index < len(steps[record.phase])
                else None
            )
            if record.status == "succeeded" and step is not None and step.output_as:
                resume.outputs[step.output_as] = record.output_full
        else:
            used = record.attempt - 1 if record.status == "suspended" else record.attempt
            resume.failed_attempts[key] = max(resume.failed_attempts.get(key, 0), used)
    for key in resume.done:
        resume.failed_attempts.pop(key, None)
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


class ExecutionService:
    async def execute(
        self, uow: UnitOfWork, run_id: uuid.UUID, settings: ExecutionSettings, deps: ExecutionDeps
    ) -> str:
        """Run one claim of the run; the answer says how it ended ("not_claimed" if it was not ours)."""
        claimed = await self._claim(uow, run_id, settings)
        if claimed is None:
            return "not_claimed"
        run, definition, resume, deadline, suspended = claimed
        journal = RunJournal(uow, run.id, run.attempt, suspended)
        ports = deps.ports(run)

        policy = definition.execution
        limits = RunLimits(budget_cap_usd=policy.budget_cap_usd, max_llm_tokens=policy.max_llm_tokens)

        def context(step: Step, run_vars: dict[str, Any], timeout: float, attempt: int) -> ActionContext:
            return ActionContext(
                space_id=str(run.space_id),
                run=run_vars,
                step_id=step.step_id,
                ports=ports,
                pipeline=deps.pipeline,
                timeout_seconds=timeout,
                limits=limits,
                max_retries=step.max_retries if step.max_retries is not None else policy.max_retries,
                attempt=attempt,
                mode=as_run_mode(run.mode),
                llm=as_llm_mode(run.llm_mode),
            )

        executor = Executor(
            actions=deps.actions, journal=journal, context_factory=context, clock=SystemClock(), scrub=redact
        )
        async with self._heartbeat(uow, run, settings, journal):
            outcome = await executor.run(definition, run_variables(run, definition), resume, deadline)
        await self._finish(uow, run, outcome, settings)
        return outcome.status

    async def _claim(
        self, uow: UnitOfWork, run_id: uuid.UUID, settings: ExecutionSettings
    ) -> tuple[Run, AutomationDefinition, Resume, datetime, dict[tuple[str, int, int], uuid.UUID]] | None:
        async with uow() as session:
            runs = RunRepository(session)
            now = utcnow()
            run = await runs.claim(run_id, settings.worker, settings.lease, now)
            if run is None:
                return None
            # The snapshot is the document of (automation, version): the fire path's cache entry.
            definition = parsed_definition(run.automation_id, run.automation_version, run.definition)
            if run.deadline_at is None:
                run.deadline_at = (run.started_at or now) + timedelta(
                    seconds=definition.execution.timeout_seconds
                )
            records = list(await RunStepRepository(session).for_run(run.id))
            for record in records:
                if record.status == "running":  # an attempt cut short by a crash
                    record.status, record.finished_at = "failed", now
                    record.error = {
                        "code": "interrupted",
                        "message": "the worker stopped during this attempt",
                    }
            suspended = {
                (record.phase, record.step_index, record.attempt): record.id
                for record in records
                if record.status == "suspended"
            }
            return run, definition, resume_from(run, records, definition), run.deadline_at, suspended

    @contextlib.asynccontextmanager
    async def _heartbeat(
        self, uow: UnitOfWork, run: Run, settings: ExecutionSettings, journal: RunJournal
    ) -> AsyncIterator[None]:
        async def beat() -> None:
            while True:
                await asyncio.sleep(settings.heartbeat_seconds)
                try:
                    async with uow() as session:
                        held = await RunRepository(session).renew_lease(
                            run.id, run.attempt, settings.lease, utcnow()
                        )
                except Exception as exc:  # the database is away: keep trying until the lease runs out
                    logger.warning("run %s: lease renewal failed (%s); retrying", run.id, type(exc).__name__)
                    continue
                if not held:
                    journal.lease_lost = True
                    return

        task = asyncio.create_task(beat())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _finish(self, uow: UnitOfWork, run: Run, outcome: Outcome, settings: ExecutionSettings) -> None:
        # A suspended claim moves the run to awaiting_approval (the table's `suspend` edge): the lease
        # and the worker are released, and only a decision puts it back to pending.
        async with uow() as session:
            await finish_claim(session, run, outcome, settings.limits, utcnow())


execution_service = ExecutionService()
