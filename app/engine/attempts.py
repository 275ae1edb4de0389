"""One action step's attempts: retries with backoff, the step's timer, and how an attempt ends.

Each step attempt has exactly one timer: the step's timeout (or what is left of the run's), around
the whole handler. A `Suspend` (an approval) or a `Wait` raised anywhere below the handler ends the
attempt as a pause of the claim; neither is ever turned into a failure or retried.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from app.definitions.automation import ExecutionPolicy, Step
from app.definitions.json_schema import CompiledSchema, schema_problems
from app.definitions.signals import StepError, Suppressed, Suspend, Wait
from app.engine.claim_ports import Clock, Journal, Outcome, Phase, Resume, StepAt, StopRequested
from app.engine.context import ActionContext
from app.engine.secret_refs import bind_references, reference_aware_problems
from app.engine.steps import RetryPolicy
from app.engine.templating import TemplateError, aevaluate_predicate, arender_value
from app.registry import DYNAMIC_OUTPUT, ActionDefinition, Actions

MAX_OUTPUT_BYTES = 1024 * 1024
# Waits up to this long happen in the worker; longer ones go back to the broker.
INLINE_RETRY_SECONDS = 5.0
WAIT_SLICE_SECONDS = 0.25
RUN_TIMEOUT = {"code": "run_timeout", "message": "the run's time ran out"}
# Outcomes that pause the claim until something outside happens; every other stop ends the walk.
PAUSES = ("suspended", "waiting")


@dataclass(frozen=True)
class StepResult:
    """How a step (or a step list) ended in this claim.

    `halted`: it stopped at a step boundary because an enclosing loop is stopping (no outcome of its own).
    """

    kind: Literal["ok", "skipped", "failed", "stop", "halted"]
    output: Any = None
    error: dict[str, Any] | None = None
    outcome: Outcome | None = None
    step_id: str | None = None
    """The step that failed or stopped (for a loop's iteration failure: the loop)."""

    def at(self, step_id: str) -> StepResult:
        """The same result, naming `step_id` when it names no step yet."""
        if self.step_id is not None:
            return self
        return StepResult(self.kind, self.output, self.error, self.outcome, step_id)


ContextFactory = Callable[[Step, str, dict[str, Any], float, int], ActionContext]
"""(step, its path, the run's template variables, seconds the attempt has, attempt number) → the
handler's context."""
Scrub = Callable[[Any], Any]
"""What a step output becomes before it is recorded and bound: the same value the journal keeps."""


class StepRunner:
    """Runs action steps' attempts for one claim; shared by every list the walk meets."""

    def __init__(
        self,
        *,
        actions: Actions,
        journal: Journal,
        context_factory: ContextFactory,
        clock: Clock,
        scrub: Scrub,
        inline_retry_seconds: float,
        rng: random.Random | None,
    ) -> None:
        self.actions = actions
        self.journal = journal
        self.context_factory = context_factory
        self.clock = clock
        self.scrub = scrub
        self.inline_retry_seconds = inline_retry_seconds
        self.rng = rng

    def now(self) -> datetime:
        return self.clock.now()

    async def step(
        self,
        phase: Phase,
        at: StepAt,
        step: Step,
        scope: dict[str, Any],
        resume: Resume,
        deadline: datetime,
        execution: ExecutionPolicy,
    ) -> StepResult:
        """Attempt the step until it succeeds, is skipped, fails for good, or the claim must stop."""
        retry = RetryPolicy(
            max_retries=step.max_retries if step.max_retries is not None else execution.max_retries,
            backoff=step.retry_backoff if step.retry_backoff is not None else execution.retry_backoff,
        )
        key = (phase, at.path)
        used = resume.failed_attempts.get(key, 0)
        earlier = resume.failures.get(key)
        if earlier is not None and _final(earlier, retry, used):
            # An earlier claim saw this step fail for good (an iteration a continuing loop went past):
            # the same failure, not one more attempt.
            return StepResult("failed", error=earlier)
        attempt = used + 1
        while True:
            if self.now() >= deadline:
                # A cancel asked for meanwhile still wins over the timeout.
                stop = await self.stop_or_timeout(deadline)
                assert stop is not None
                return StepResult("stop", outcome=stop)
            try:
                record = await self.journal.begin_step(phase, at, attempt)
            except StopRequested as requested:
                return StepResult("stop", outcome=Outcome(requested.reason))
            try:
                result = await self._attempt(step, at.path, scope, record, deadline, attempt)
            except _DeadlineReached:
                await self.journal.finish_step(record, status="failed", error=dict(RUN_TIMEOUT))
                return StepResult("stop", outcome=Outcome("timed_out", error=dict(RUN_TIMEOUT)))
            if result.kind != "failed":
                return result
            assert result.error is not None
            if not (result.error.get("retryable", True) and retry.allows(attempt)):
                return result
            delay = retry.delay(attempt, self.rng)
            if delay > self.inline_retry_seconds:
                return StepResult("stop", outcome=Outcome("retry_later", retry_in_seconds=delay))
            stop = await self._wait(delay, deadline)
            if stop is not None:
                return StepResult("stop", outcome=stop)
            attempt += 1

    async def _attempt(
        self, step: Step, path: str, scope: dict[str, Any], record: Any, deadline: datetime, attempt: int
    ) -> StepResult:
        config: Any = None
        ctx: ActionContext | None = None
        action: ActionDefinition | None = None
        try:
            if step.when is not None and not await aevaluate_predicate(step.when, scope):
                await self.journal.finish_step(record, status="skipped")
                return StepResult("skipped")
            action = self.actions.get(step.action)
            if action is None:
                raise StepError("unknown_action", f"no action {step.action!r}", retryable=False)
            config = bind_references(step.config, await arender_value(step.config, scope))
            _check_config(action, config)
            remaining = (deadline - self.now()).total_seconds()
            limit = min(float(step.timeout_seconds), remaining) if step.timeout_seconds else remaining
            ctx = self.context_factory(step, path, scope.get("run", {}), limit, attempt)
            started = time.monotonic()
            try:
                output = await asyncio.wait_for(action.handler(ctx, config), limit)
            except TimeoutError:
                if limit >= remaining:
                    raise _DeadlineReached from None
                raise StepError(
                    "step_timeout", f"no result within {limit:g} s (after {time.monotonic() - started:.1f} s)"
                ) from None
            _check_output(action, config, output)
            output = self.scrub(output)
        except Suppressed as held:
            # A dry or verify run held the step's call back: what it would have sent is the output,
            # so later steps still render; the attempt succeeded without touching anything.
            output = self.scrub(_held_output(action, held))
            await self.journal.finish_step(
                record, status="succeeded", config=config, output=output, suppressed=_held(ctx)
            )
            return StepResult("ok", output=output)
        except Suspend as signal:
            suspension = signal.as_dict()
            await self.journal.suspend_step(record, config=config, suspension=suspension)
            return StepResult("stop", outcome=Outcome("suspended", suspension=suspension))
        except Wait as signal:
            # Recorded like an approval's pause: the next claim runs this same attempt again.
            waiting = signal.as_dict()
            await self.journal.suspend_step(record, config=config, suspension=waiting)
            return StepResult("stop", outcome=Outcome("waiting", suspension=waiting))
        except TemplateError as exc:
            return await self._failed(
                record, config, {"code": exc.code, "message": exc.message, "retryable": False}
            )
        except StepError as exc:
            return await self._failed(record, config, {**exc.as_dict(), "retryable": exc.retryable}, action)
        except _DeadlineReached:
            raise
        except Exception as exc:  # a handler's own failure: the message only, never a traceback
            message = f"{type(exc).__name__}: {str(exc)[:500]}"
            return await self._failed(
                record, config, {"code": "action_error", "message": message, "retryable": True}, action
            )
        await self.journal.finish_step(
            record,
            status="succeeded",
            config=_recorded(action, config, output),
            output=output,
            suppressed=_held(ctx),
        )
        return StepResult("ok", output=output)

    async def _failed(
        self, record: Any, config: Any, error: dict[str, Any], action: ActionDefinition | None = None
    ) -> StepResult:
        await self.journal.finish_step(
            record, status="failed", config=_recorded(action, config, None), error=error
        )
        return StepResult("failed", error=error)

    async def stop_or_timeout(self, deadline: datetime) -> Outcome | None:
        """The claim's stop (cancel, lost lease, the deadline), or None when it may go on."""
        reason = await self.journal.stop_reason()
        if reason == "cancelled":
            return Outcome("cancelled")
        if reason == "lease_lost":
            return Outcome("lease_lost")
        if self.now() >= deadline:
            return Outcome("timed_out", error=dict(RUN_TIMEOUT))
        return None

    async def _wait(self, seconds: float, deadline: datetime) -> Outcome | None:
        """Sleep in slices, so a cancel or the deadline interrupts the wait."""
        until = self.now() + timedelta(seconds=seconds)
        while self.now() < until:
            stop = await self.stop_or_timeout(deadline)
            if stop is not None:
                return stop
            await self.clock.sleep(min(WAIT_SLICE_SECONDS, max(0.0, (until - self.now()).total_seconds())))
        return None


def _final(error: dict[str, Any], retry: RetryPolicy, used: int) -> bool:
    """Whether a recorded failure ended the step for good (an interrupted attempt never does)."""
    if error.get("code") == "interrupted":
        return False
    return not (error.get("retryable", True) and retry.allows(used))


def _recorded(action: ActionDefinition | None, config: Any, output: Any) -> Any:
    """The rendered config as the step record keeps it (see `ActionDefinition.recorded_config`)."""
    if action is None or action.recorded_config is None or not isinstance(config, dict):
        return config
    return action.recorded_config(config, output)


def _held_output(action: ActionDefinition | None, held: Suppressed) -> Any:
    """A held-back step's output: the action's example fields (if it declares them), and what it would
    have sent."""
    example = action.example_output if action is not None else None
    return {**example, **held.as_output()} if isinstance(example, dict) else held.as_output()


def _held(ctx: ActionContext | None) -> list[dict[str, Any]] | None:
    """The calls the attempt held back, or None when it held back none (a live run never does)."""
    return list(ctx.suppressed) if ctx is not None and ctx.suppressed else None


class _DeadlineReached(Exception):
    """The run's own timeout ended the step (not the step's timeout)."""


def _check_config(action: ActionDefinition, config: Any) -> None:
    problems = reference_aware_problems(action.config_schema, config, compiled=action.config_check)
    if problems:
        raise StepError("invalid_config", problems[0], retryable=False, details=problems)


def _check(
    schema: dict[str, Any], value: Any, code: str, *, retryable: bool, compiled: CompiledSchema | None = None
) -> None:
    problems = schema_problems(schema, value, compiled=compiled)
    if problems:
        raise StepError(code, problems[0], retryable=retryable, details=problems)


def _check_output(action: ActionDefinition, config: Any, output: Any) -> None:
    schema = (
        config.get("output_schema") if action.output_contract is DYNAMIC_OUTPUT else action.output_contract
    )
    if isinstance(schema, dict):
        # A static contract is compiled once on the action; a step's own output_schema by content.
        compiled = action.output_check if schema is action.output_contract else None
        _check(schema, output, "invalid_output", retryable=True, compiled=compiled)
    try:
        size = len(json.dumps(output, ensure_ascii=False, allow_nan=False).encode("utf-8"))
    except (TypeError, ValueError) as exc:
        raise StepError("invalid_output", f"output is not JSON data: {exc}", retryable=False) from None
    if size > MAX_OUTPUT_BYTES:
        raise StepError(
            "output_too_large", f"output is {size} bytes, over {MAX_OUTPUT_BYTES}", retryable=False
        )
