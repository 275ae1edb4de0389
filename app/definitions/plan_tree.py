"""Walking a plan that is a tree: action steps, and `if` / `for_each` blocks holding step lists.

Everything that reads a plan (the validator, the preview, the cost estimate, the queue a run goes to)
walks it here, so a new kind of block is taught in one place. Two addresses locate a step:

- its **pointer** (`/plan/1/if/then/0`): where it is in the document, for errors at save;
- its **path** (`fetch/3/classify`): which execution of it a step record is. Step ids are unique across
  the whole plan, so a step outside any loop is its id; inside a loop, each enclosing `for_each` adds
  its id and the iteration's index in front.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from app.definitions.automation import AutomationDefinition, ForEachStep, IfStep, Step

Where = tuple[str | int, ...]
LOOP_SEPARATOR = "/"


@dataclass(frozen=True)
class Located:
    """One step of the tree with where it sits: its document location and its enclosing loops."""

    step: Step | IfStep | ForEachStep
    where: Where
    """Location in the document, e.g. ("plan", 1, "if", "then", 0)."""
    loops: tuple[str, ...] = ()
    """The step ids of the `for_each` blocks around it, outermost first."""
    branches: tuple[tuple[str, str], ...] = ()
    """(if step id, "then" | "else") for each branch around it, outermost first."""


def children(step: Step | IfStep | ForEachStep) -> Iterator[tuple[Where, Sequence[Any]]]:
    """The step lists a block holds, with their location relative to the block."""
    if isinstance(step, IfStep):
        yield ("if", "then"), step.if_.then
        yield ("if", "else"), step.if_.else_
    elif isinstance(step, ForEachStep):
        yield ("for_each", "steps"), step.for_each.steps


def walk(steps: Sequence[Any], where: Where = ("plan",), located: Located | None = None) -> Iterator[Located]:
    """Every step of a step list and of the blocks inside it, depth first, in document order."""
    loops = located.loops if located is not None else ()
    branches = located.branches if located is not None else ()
    for index, step in enumerate(steps):
        here = Located(step, (*where, index), loops, branches)
        yield here
        inner_loops = (*loops, step.step_id) if isinstance(step, ForEachStep) else loops
        for relative, inner in children(step):
            branch = (*branches, (step.step_id, str(relative[-1]))) if isinstance(step, IfStep) else branches
            yield from walk(inner, (*here.where, *relative), Located(step, here.where, inner_loops, branch))


def walk_definition(definition: AutomationDefinition) -> Iterator[Located]:
    """Every step of the plan (at any depth), then the on_failure steps."""
    yield from walk(definition.plan)
    yield from walk(definition.execution.on_failure, ("execution", "on_failure"))


def action_steps(definition: AutomationDefinition) -> list[Step]:
    """Every action step the definition may run, in the plan's blocks too, then the on_failure steps."""
    return [located.step for located in walk_definition(definition) if isinstance(located.step, Step)]


def step_path(prefix: str, step_id: str) -> str:
    """The path of a step inside the iteration (or the plan) whose path is `prefix` ("" at the top)."""
    return f"{prefix}{LOOP_SEPARATOR}{step_id}" if prefix else step_id


def iteration_prefix(loop_path: str, index: int) -> str:
    """The prefix of the steps of iteration `index` of the loop at `loop_path`: `fetch/3`."""
    return f"{loop_path}{LOOP_SEPARATOR}{index}"
