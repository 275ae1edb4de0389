"""Walking step lists: action steps, `if` branches and `for_each` loops, at any depth.

Every step met is addressed by its path (`app.definitions.plan_tree`): a step outside loops by its
id, a step in iteration 3 of loop `fetch` as `fetch/3/<id>`. What an earlier claim did is found by
that path in `Resume`: a done step binds its recorded output and is not run again, a done `if` takes
its recorded branch without evaluating its condition again, and a loop goes on over the item list
recorded when it began (never rendered again) with its done iterations rebuilt from their steps' records.

A loop runs its iterations as asyncio tasks, at most `concurrency` at once. When an iteration pauses
(an approval, a wait) no new iteration starts and the others go on until they end or pause too; when
one fails (without `continue_on_error`) or the claim must stop, the others stop after their current
step.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.definitions.automation import ExecutionPolicy, ForEachStep, IfStep, Step
from app.definitions.plan_tree import iteration_prefix, step_path
from app.engine.attempts import PAUSES, RUN_TIMEOUT, StepResult, StepRunner
from app.engine.claim_ports import ClaimLost, Outcome, Phase, Resume, StepAt, StopRequested
from app.engine.filters import FilterError, compile_filter
from app.engine.templating import TemplateError, arender_value

# How a stop of one iteration ends the loop, most decisive first.
_STOP_ORDER = ("lease_lost", "cancelled", "timed_out", "retry_later")


@functools.lru_cache(maxsize=512)
def _compiled(document: str) -> Any:
    """A condition without templates, compiled once per content."""
    return compile_filter(json.loads(document))


async def decide(condition: dict[str, Any], scope: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """Whether `condition` holds over `scope`, and the condition as evaluated (templates rendered).

    Raises `TemplateError` or `FilterError`."""
    document = json.dumps(condition, sort_keys=True)
    if "{{" in document or "{%" in document:
        rendered = await arender_value(condition, scope)
        return bool(compile_filter(rendered)(scope)), rendered
    return bool(_compiled(document)(scope)), condition


@dataclass
class LoopControl:
    """What the iterations of one loop (and the loops around it) tell each other."""

    parent: LoopControl | None = None
    halted: bool = False
    """An iteration failed or the claim must stop: iterations stop after their current step."""
    paused: bool = False
    """An iteration paused: no new iteration starts."""

    @property
    def stopping(self) -> bool:
        return self.halted or (self.parent is not None and self.parent.stopping)


class Walker:
    """Walks the step lists of one phase of a claim."""

    def __init__(
        self,
        runner: StepRunner,
        phase: Phase,
        resume: Resume,
        deadline: datetime,
        execution: ExecutionPolicy,
    ) -> None:
        self.runner = runner
        self.journal = runner.journal
        self.phase = phase
        self.resume = resume
        self.deadline = deadline
        self.execution = execution

    async def walk(
        self,
        steps: Sequence[Step | IfStep | ForEachStep],
        prefix: str,
        scope: dict[str, Any],
        bound: dict[str, Any],
        control: LoopControl | None = None,
    ) -> StepResult:
        """Walk a step list; `ok` carries the output of its last step that ran (None if none ran),
        `skipped` says none ran. Outputs bind into `scope` (and `bound`) as steps succeed."""
        last: StepResult = StepResult("skipped")
        for index, step in enumerate(steps):
            if control is not None and control.stopping:
                return StepResult("halted")
            path = step_path(prefix, step.step_id)
            if isinstance(step, IfStep):
                result = await self._if(
                    step, StepAt(path, index, step.step_id, "if"), prefix, scope, bound, control
                )
            elif isinstance(step, ForEachStep):
                result = await self._for_each(
                    step, StepAt(path, index, step.step_id, "for_each"), scope, control
                )
            else:
                result = await self._action(step, StepAt(path, index, step.step_id, step.action), scope)
            if result.kind in ("failed", "stop", "halted"):
                return result.at(step.step_id)
            if result.kind == "ok":
                last = result
                output_as = getattr(step, "output_as", None)
                if output_as:
                    scope[output_as] = bound[output_as] = result.output
        return last

    async def _action(self, step: Step, at: StepAt, scope: dict[str, Any]) -> StepResult:
        key = (self.phase, at.path)
        if key in self.resume.done:
            if key in self.resume.outputs:
                return StepResult("ok", output=self.resume.outputs[key])
            return StepResult("skipped")
        return await self.runner.step(self.phase, at, step, scope, self.resume, self.deadline, self.execution)

    async def _begin(self, at: StepAt) -> tuple[Any, StepResult | None]:
        """Begin a block's record: (record, None), or (None, the stop) when the claim must stop."""
        if self.runner.now() >= self.deadline:
            stop = await self.runner.stop_or_timeout(self.deadline)
            assert stop is not None
            return None, StepResult("stop", outcome=stop)
        attempt = self.resume.failed_attempts.get((self.phase, at.path), 0) + 1
        try:
            return await self.journal.begin_step(self.phase, at, attempt), None
        except StopRequested as requested:
            return None, StepResult("stop", outcome=Outcome(requested.reason))

    async def _if(
        self,
        step: IfStep,
        at: StepAt,
        prefix: str,
        scope: dict[str, Any],
        bound: dict[str, Any],
        control: LoopControl | None,
    ) -> StepResult:
        key = (self.phase, at.path)
        if key in self.resume.done:
            # The branch an earlier claim took, whatever the condition would say now.
            branch = (self.resume.outputs.get(key) or {}).get("branch")
        else:
            record, stop = await self._begin(at)
            if stop is not None:
                return stop
            try:
                holds, condition = await decide(step.if_.condition, scope)
            except (TemplateError, FilterError) as exc:
                error = {"code": "invalid_condition", "message": str(exc.message), "retryable": False}
                await self.journal.finish_step(record, status="failed", error=error)
                return StepResult("failed", error=error)
            branch = "then" if holds else "else"
            await self.journal.finish_step(
                record, status="succeeded", config={"condition": condition}, output={"branch": branch}
            )
        steps = step.if_.then if branch == "then" else step.if_.else_
        # Steps of a branch bind into the scope around the `if`.
        return await self.walk(steps, prefix, scope, bound, control)

    async def _for_each(
        self, step: ForEachStep, at: StepAt, scope: dict[str, Any], control: LoopControl | None
    ) -> StepResult:
        key = (self.phase, at.path)
        if key in self.resume.done:
            return StepResult("ok", output=self.resume.outputs.get(key))
        record, stop = await self._begin(at)
        if stop is not None:
            return stop
        items = self.resume.items.get(key)
        if items is None:
            rendered = await self._items(step, record, scope)
            if isinstance(rendered, StepResult):
                return rendered
            items = rendered
        inner = LoopControl(parent=control)
        results = await self._iterations(step, at.path, items, scope, inner)
        return await self._loop_end(step, record, results, inner)

    async def _items(self, step: ForEachStep, record: Any, scope: dict[str, Any]) -> list[Any] | StepResult:
        """The loop's list, rendered and recorded before its first iteration (or its failure): what
        the template reads may have changed when a later claim continues the loop, the list may not."""
        block = step.for_each
        try:
            items = await arender_value(block.items, scope) if isinstance(block.items, str) else block.items
        except TemplateError as exc:
            return await self._loop_failed(record, {"code": exc.code, "message": exc.message})
        if not isinstance(items, list):
            return await self._loop_failed(
                record,
                {"code": "items_not_a_list", "message": f"items is {type(items).__name__}, not a list"},
            )
        if len(items) > block.max_items:
            return await self._loop_failed(
                record,
                {
                    "code": "too_many_items",
                    "message": f"{len(items)} items, over max_items ({block.max_items})",
                },
            )
        # Every claim iterates the list as stored, this one included.
        kept: list[Any] = self.runner.scrub(items)
        await self.journal.fix_items(record, kept)
        return kept

    async def _iterations(
        self, step: ForEachStep, path: str, items: list[Any], scope: dict[str, Any], control: LoopControl
    ) -> list[StepResult | None]:
        block = step.for_each
        results: list[StepResult | None] = [None] * len(items)
        order = iter(range(len(items)))

        async def lane() -> None:
            for index in order:  # the lanes share one iterator: each index is taken once
                if control.stopping or control.paused:
                    return
                iteration = {**scope, "item": items[index], "index": index}
                result = await self.walk(block.steps, iteration_prefix(path, index), iteration, {}, control)
                results[index] = result
                if result.kind == "failed" and not block.continue_on_error:
                    control.halted = True
                elif result.kind == "stop":
                    assert result.outcome is not None
                    if result.outcome.status in PAUSES:
                        control.paused = True
                    else:
                        control.halted = True

        async def guarded() -> None:
            try:
                await lane()
            except BaseException:
                control.halted = True
                raise

        lanes = min(block.concurrency, len(items))
        ended = await asyncio.gather(*(guarded() for _ in range(lanes)), return_exceptions=True)
        # Every lane has ended before anything is raised: no iteration is left running unowned.
        for problem in ended:
            if isinstance(problem, ClaimLost):
                raise problem
        for problem in ended:
            if isinstance(problem, BaseException):
                raise problem
        return results

    async def _loop_end(
        self, step: ForEachStep, record: Any, results: list[StepResult | None], control: LoopControl
    ) -> StepResult:
        stops = [r for r in results if r is not None and r.kind == "stop" and r.outcome is not None]
        final = [r for r in stops if r.outcome is not None and r.outcome.status not in PAUSES]
        if final:
            outcome = min(
                (r.outcome for r in final if r.outcome is not None), key=lambda o: _STOP_ORDER.index(o.status)
            )
            if outcome.status != "lease_lost":
                error = dict(RUN_TIMEOUT) if outcome.status == "timed_out" else _stopped(outcome.status)
                await self.journal.finish_step(record, status="failed", error=error)
            return StepResult("stop", outcome=outcome)
        failures = [(i, r) for i, r in enumerate(results) if r is not None and r.kind == "failed"]
        if failures and not step.for_each.continue_on_error:
            index, failed = failures[0]
            inner = {k: v for k, v in (failed.error or {}).items() if k != "retryable"}
            return await self._loop_failed(
                record,
                {
                    "code": "iteration_failed",
                    "message": f"iteration {index} failed at {failed.step_id}: {inner.get('message', '')}",
                    "details": {"index": index, "step_id": failed.step_id, "error": inner},
                },
            )
        if stops:
            paused = [i for i, r in enumerate(results) if any(r is stop for stop in stops)]
            approvals = [r for r in stops if r.outcome is not None and r.outcome.status == "suspended"]
            chosen = (approvals or stops)[0]
            # Without a call of its own: the paused steps' records hold theirs.
            await self.journal.suspend_step(
                record, config=None, suspension={"reason": "iterations_paused", "iterations": paused}
            )
            return StepResult("stop", outcome=chosen.outcome)
        if control.stopping or any(r is None or r.kind == "halted" for r in results):
            # An enclosing loop is stopping: this one ends unfinished, to be continued by a later claim.
            await self.journal.finish_step(record, status="failed", error=_stopped("halted"))
            return StepResult("halted")
        outputs = [_iteration_output(r) for r in results if r is not None]
        output = self.runner.scrub(outputs)
        await self.journal.finish_step(
            record, status="succeeded", config={"items": len(outputs)}, output=output
        )
        return StepResult("ok", output=output)

    async def _loop_failed(self, record: Any, error: dict[str, Any]) -> StepResult:
        error = {**error, "retryable": False}
        await self.journal.finish_step(record, status="failed", error=error)
        return StepResult("failed", error=error)


def _stopped(reason: str) -> dict[str, Any]:
    return {
        "code": "loop_stopped",
        "message": f"the loop stopped before its end ({reason})",
        "retryable": True,
    }


def _iteration_output(result: StepResult) -> Any:
    """An iteration's output: its last step's that ran, or the error of a failed one (continue_on_error)."""
    if result.kind == "failed":
        error = {k: v for k, v in (result.error or {}).items() if k != "retryable"}
        return {"error": {**error, "step_id": result.step_id}}
    return result.output
