"""The executor: walks one claim of a run's plan (a tree of steps), then its on_failure steps.

It does no I/O of its own. The journal (persistence of step attempts, cancellation and lease checks),
the clock (time and waiting) and the action context (side effects) are handed to it, so the same walk
runs in a worker and in a unit test with fakes. A resumed run starts at the first step without a
recorded success; a succeeded step never runs again (`app.engine.blocks` walks the lists,
`app.engine.attempts` runs one action step's attempts).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from app.definitions.automation import AutomationDefinition, ForEachStep, IfStep, Step
from app.definitions.plan_tree import step_path
from app.engine.attempts import (
    INLINE_RETRY_SECONDS,
    MAX_OUTPUT_BYTES,
    RUN_TIMEOUT,
    ContextFactory,
    Scrub,
    StepResult,
    StepRunner,
)
from app.engine.blocks import Walker
from app.engine.claim_ports import ClaimLost, Clock, Journal, Outcome, Phase, Resume, SystemClock
from app.registry import Actions

__all__ = ["MAX_OUTPUT_BYTES", "RUN_TIMEOUT", "ContextFactory", "Executor", "Scrub"]


def _unchanged(value: Any) -> Any:
    return value


class Executor:
    """Walks one run's plan (and on_failure steps) for one claim."""

    def __init__(
        self,
        *,
        actions: Actions,
        journal: Journal,
        context_factory: ContextFactory,
        clock: Clock | None = None,
        scrub: Scrub = _unchanged,
        inline_retry_seconds: float = INLINE_RETRY_SECONDS,
        rng: random.Random | None = None,
    ) -> None:
        self.journal = journal
        self.clock = clock or SystemClock()
        self.runner = StepRunner(
            actions=actions,
            journal=journal,
            context_factory=context_factory,
            clock=self.clock,
            scrub=scrub,
            inline_retry_seconds=inline_retry_seconds,
            rng=rng,
        )

    def now(self) -> datetime:
        return self.clock.now()

    async def run(
        self,
        definition: AutomationDefinition,
        variables: dict[str, Any],
        resume: Resume,
        deadline: datetime,
        *,
        reserve: timedelta = timedelta(0),
    ) -> Outcome:
        """Walk the plan, then the on_failure steps if it failed or ran out of time.

        With on_failure steps, the plan must end `reserve` before `deadline`: a plan that runs out of
        time fails its step with `run_timeout`, the on_failure steps run in the reserved time, and the
        run still ends `timed_out`.
        """
        try:
            return await self._run(definition, variables, resume, deadline, reserve)
        except ClaimLost:
            return Outcome("lease_lost")

    async def _run(
        self,
        definition: AutomationDefinition,
        variables: dict[str, Any],
        resume: Resume,
        deadline: datetime,
        reserve: timedelta,
    ) -> Outcome:
        scope = dict(variables)
        outputs: dict[str, Any] = {}
        policy = definition.execution
        plan_deadline = deadline - reserve if policy.on_failure else deadline
        if resume.plan_error is None:
            walker = Walker(self.runner, "plan", resume, plan_deadline, policy)
            result = await walker.walk(definition.plan, "", scope, outputs)
            if result.kind == "stop" and _timed_out(result) and policy.on_failure:
                # Out of time, not stopped: the on_failure steps still run, in the reserve.
                result = StepResult("failed", error=dict(RUN_TIMEOUT), step_id=result.step_id)
            if result.kind == "stop":
                assert result.outcome is not None
                return result.outcome
            if result.kind != "failed":
                return Outcome("succeeded", output=outputs)
            assert result.error is not None
            assert result.step_id is not None
            resume.plan_error, resume.failed_step_id = result.error, result.step_id
            await self.journal.plan_failed(result.step_id, result.error)
        else:
            scope.update(bound_outputs(definition.plan, "", resume, "plan"))
        return await self._on_failure(definition, scope, resume, deadline)

    async def _on_failure(
        self, definition: AutomationDefinition, scope: dict[str, Any], resume: Resume, deadline: datetime
    ) -> Outcome:
        run_vars = {
            **scope.get("run", {}),
            "error": resume.plan_error,
            "failed_step_id": resume.failed_step_id,
        }
        scope = {**scope, "run": run_vars}
        walker = Walker(self.runner, "on_failure", resume, deadline, definition.execution)
        # A failing handler ends the handlers, and the run has failed already: it does not hide the
        # plan's error.
        result = await walker.walk(definition.execution.on_failure, "", scope, {})
        if result.kind == "stop":
            assert result.outcome is not None
            return result.outcome
        # A plan that ran out of time stays a timeout, whatever its on_failure steps did.
        timed_out = (resume.plan_error or {}).get("code") == RUN_TIMEOUT["code"]
        return Outcome(
            "timed_out" if timed_out else "failed",
            error=resume.plan_error,
            failed_step_id=resume.failed_step_id,
        )


def bound_outputs(
    steps: Sequence[Step | IfStep | ForEachStep], prefix: str, resume: Resume, phase: Phase
) -> dict[str, Any]:
    """The names the done steps of a list bound (in a branch an earlier claim took too), without
    running anything: the scope of on_failure steps when an earlier claim failed the plan."""
    bound: dict[str, Any] = {}
    for step in steps:
        key = (phase, step_path(prefix, step.step_id))
        if key not in resume.done:
            continue
        if isinstance(step, IfStep):
            branch = (resume.outputs.get(key) or {}).get("branch")
            bound.update(
                bound_outputs(step.if_.then if branch == "then" else step.if_.else_, prefix, resume, phase)
            )
        elif step.output_as and key in resume.outputs:
            bound[step.output_as] = resume.outputs[key]
    return bound


def _timed_out(result: StepResult) -> bool:
    return result.outcome is not None and result.outcome.status == "timed_out"
