"""The plan as a tree, read from the submitted document: where each step is, and which names it may read.

The validator works on the raw document (whatever parts of it have a usable shape), so it walks the
tree here rather than through the parsed models. A name bound by `output_as` is visible:
- after the step that binds it (after the whole loop, for a `for_each` step's own `output_as`);
- inside the same loop iteration only, when bound inside a `for_each` body (outside, the loop's own
  `output_as` holds the list of the iterations' outputs);
- after an `if`, when bound in one of its branches, with a warning: the other branch leaves it unbound;
  never in the other branch of the same `if`.
`item` and `index` are read only inside a `for_each` body.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from app.definitions.pointers import join
from app.engine.validation.problems import Problem

Where = tuple[str | int, ...]
# Names every template may read besides bound step outputs; `LOOP_NAMES` only inside a loop's body.
CONTEXT_NAMES = frozenset({"run", "inputs", "trigger"})
LOOP_NAMES = frozenset({"item", "index"})
RESERVED_NAMES = CONTEXT_NAMES | LOOP_NAMES
MAX_BLOCK_DEPTH = 5
MAX_TOTAL_STEPS = 300
# Actions that pause a run for a time, an event or a child run: not in on_failure, which runs after
# the plan has already failed and must end.
WAITING_ACTIONS = frozenset({"wait", "wait_for_event", "call_automation"})


@dataclass(frozen=True)
class RawStep:
    """One step of the submitted document with its place in the tree."""

    step: dict[str, Any]
    where: Where
    position: int
    """Pre-order index over the plan, then on_failure."""
    end: int
    """Position just past the step's last descendant (position + 1 for an action step)."""
    loops: tuple[str, ...]
    branches: tuple[tuple[str, str], ...]
    depth: int
    in_plan: bool


def kind_of(step: dict[str, Any]) -> str:
    """ "if", "for_each" or "action", as the definition's step union tells them apart."""
    if "if" in step:
        return "if"
    if "for_each" in step:
        return "for_each"
    return "action"


def _lists(step: dict[str, Any]) -> Iterator[tuple[Where, list[Any], str | None]]:
    """The step lists inside a block: (location relative to the step, the list, the branch name)."""
    kind = kind_of(step)
    body = step.get(kind)
    if kind == "action" or not isinstance(body, dict):
        return
    if kind == "if":
        for branch in ("then", "else"):
            if isinstance(body.get(branch), list):
                yield ("if", branch), body[branch], branch
    elif isinstance(body.get("steps"), list):
        yield ("for_each", "steps"), body["steps"], None


def walk_document(document: Mapping[str, Any]) -> list[RawStep]:
    """Every step of the plan (at any depth), then of on_failure, in document order."""
    found: list[RawStep] = []
    plan = document.get("plan")
    execution = document.get("execution")
    on_failure = execution.get("on_failure") if isinstance(execution, dict) else None
    _walk(plan if isinstance(plan, list) else [], ("plan",), (), (), 0, True, found)
    _walk(
        on_failure if isinstance(on_failure, list) else [],
        ("execution", "on_failure"),
        (),
        (),
        0,
        False,
        found,
    )
    return found


def _walk(
    steps: list[Any],
    where: Where,
    loops: tuple[str, ...],
    branches: tuple[tuple[str, str], ...],
    depth: int,
    in_plan: bool,
    found: list[RawStep],
) -> None:
    for index, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        here = (*where, index)
        slot = len(found)
        found.append(RawStep(step, here, slot, slot + 1, loops, branches, depth, in_plan))
        raw_id = step.get("step_id")
        step_id = raw_id if isinstance(raw_id, str) else "?"
        for relative, inner, branch in _lists(step):
            inner_loops = (*loops, step_id) if branch is None else loops
            inner_branches = (*branches, (step_id, branch)) if branch is not None else branches
            _walk(inner, (*here, *relative), inner_loops, inner_branches, depth + 1, in_plan, found)
        found[slot] = RawStep(step, here, slot, len(found), loops, branches, depth, in_plan)


@dataclass(frozen=True)
class Binding:
    visible_from: int
    loops: tuple[str, ...]
    branches: tuple[tuple[str, str], ...]
    where: Where


class PlanScope:
    """The names bound across the tree, and the checks of what each step reads and where it sits."""

    def __init__(self, steps: list[RawStep]) -> None:
        self.steps = steps
        self.plan_end = sum(1 for step in steps if step.in_plan)
        self.bindings: dict[str, Binding] = {}
        self.problems: list[Problem] = []
        self._bind_and_check()

    def _bind_and_check(self) -> None:
        step_ids: set[str] = set()
        for located in self.steps:
            step, base = located.step, located.where
            step_id, output_as = step.get("step_id"), step.get("output_as")
            if isinstance(step_id, str):
                if step_id in step_ids:
                    self._error(base, "step_id", "duplicate_step_id", f"step_id {step_id!r} is already used")
                step_ids.add(step_id)
            self.problems += _placement(located)
            if not isinstance(output_as, str):
                continue
            if output_as in RESERVED_NAMES:
                self._error(base, "output_as", "reserved_name", f"{output_as!r} is a reserved context name")
            elif output_as in self.bindings:
                self._error(base, "output_as", "duplicate_output_as", f"{output_as!r} is already bound")
            else:
                # A loop's own output (the list) exists once every iteration has ended.
                visible_from = located.end if kind_of(step) == "for_each" else located.position + 1
                self.bindings[output_as] = Binding(visible_from, located.loops, located.branches, base)
        if self.plan_end > MAX_TOTAL_STEPS:
            self.problems.append(
                Problem("/plan", "too_many_steps", f"{self.plan_end} steps in all, over {MAX_TOTAL_STEPS}")
            )

    def _error(self, base: Where, field: str, code: str, message: str) -> None:
        self.problems.append(Problem(join(*base, field), code, message))

    def references(self, names: set[str], where: Where, reader: RawStep) -> list[Problem]:
        """Problems of a template at `where` in step `reader` reading `names`."""
        position = reader.position if reader.in_plan else self.plan_end
        problems = []
        for name in sorted(names - CONTEXT_NAMES):
            if name in LOOP_NAMES:
                if not reader.loops:
                    problems.append(
                        Problem(join(*where), "unknown_reference", f"{name!r} exists only inside a for_each")
                    )
                continue
            problems += self._reference(name, where, reader, position)
        return problems

    def _reference(self, name: str, where: Where, reader: RawStep, position: int) -> list[Problem]:
        pointer = join(*where)
        bound = self.bindings.get(name)
        if bound is None:
            return [
                Problem(
                    pointer,
                    "unknown_reference",
                    f"{name!r} is neither run, inputs, trigger nor bound by any step's output_as",
                )
            ]
        if bound.visible_from > position:
            return [Problem(pointer, "reference_before_binding", f"{name!r} is bound by a later step")]
        if reader.loops[: len(bound.loops)] != bound.loops:
            loop = bound.loops[len(reader.loops)] if len(bound.loops) > len(reader.loops) else bound.loops[-1]
            return [
                Problem(
                    pointer,
                    "reference_outside_loop",
                    f"{name!r} is bound inside each iteration of {loop!r}; read the loop's output_as instead",
                )
            ]
        problems = []
        for if_id, branch in bound.branches:
            if (if_id, branch) in reader.branches:
                continue
            if any(seen == if_id for seen, _ in reader.branches):
                problems.append(
                    Problem(
                        pointer,
                        "reference_other_branch",
                        f"{name!r} is bound only in the {branch} branch of {if_id!r}, never on this one",
                    )
                )
            else:
                problems.append(
                    Problem(
                        pointer,
                        "maybe_unbound",
                        f"{name!r} is bound only when {if_id!r} takes its {branch} branch",
                        "warning",
                    )
                )
        return problems


def _placement(located: RawStep) -> list[Problem]:
    """Where a step may not be: too deep among blocks, or a waiting action among on_failure steps."""
    problems = []
    if located.depth > MAX_BLOCK_DEPTH:
        problems.append(
            Problem(
                join(*located.where),
                "too_deep",
                f"blocks nest at most {MAX_BLOCK_DEPTH} deep (if and for_each inside each other)",
            )
        )
    action = located.step.get("action")
    if not located.in_plan and isinstance(action, str) and action in WAITING_ACTIONS:
        problems.append(
            Problem(
                join(*located.where, "action"),
                "not_allowed_in_on_failure",
                f"{action} pauses the run; on_failure steps run after the plan failed and must not wait",
            )
        )
    return problems
