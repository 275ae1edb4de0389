"""Cycles through `call_automation` steps, found at save: an automation that (through others) calls
itself would start child runs until the depth limit stops it, every time it runs.

Pure: the caller hands in the definitions of the space's other automations.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import ValidationError

from app.definitions.automation import AutomationDefinition, Step
from app.definitions.plan_tree import walk_definition
from app.definitions.pointers import join
from app.engine.validation import Problem

CALL_ACTION = "call_automation"


def _is_template(value: str) -> bool:
    return "{{" in value or "{%" in value


def calls(document: Any) -> Iterator[tuple[str, str]]:
    """(JSON pointer of the step's `automation`, the automation id it names) for every
    `call_automation` step of the document, at any depth of `if` / `for_each`; templated ids are left
    out (they are known only when the step runs)."""
    if not isinstance(document, dict):
        return
    try:
        definition = AutomationDefinition.model_validate(document)
    except ValidationError:
        return  # the validator reports what is wrong with it
    for located in walk_definition(definition):
        step = located.step
        if not isinstance(step, Step) or step.action != CALL_ACTION or not isinstance(step.config, dict):
            continue
        target = step.config.get("automation")
        if isinstance(target, str) and target and not _is_template(target):
            yield join(*located.where, "config", "automation"), target


def call_graph_problems(automation_id: str, document: Any, others: Mapping[str, Any]) -> list[Problem]:
    """An `automation_cycle` problem for each `call_automation` step of `document` (the definition
    `automation_id` is about to have) through which the automation would end up calling itself, given the
    current definitions of the space's other automations (`others`: id → document)."""
    graph: dict[str, list[str]] = {}

    def callees(node: str) -> list[str]:
        if node not in graph:
            graph[node] = [target for _, target in calls(others.get(node))]
        return graph[node]

    problems: list[Problem] = []
    for pointer, target in calls(document):
        route = _route(target, automation_id, callees)
        if route is not None:
            chain = " → ".join([automation_id, *route])
            problems.append(
                Problem(pointer, "automation_cycle", f"this call makes a cycle of automations: {chain}")
            )
    return problems


def _route(start: str, goal: str, callees: Any) -> list[str] | None:
    """The chain of ids from `start` to `goal` along calls (both ends included), or None."""
    if start == goal:
        return [start]
    seen = {start}
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    while stack:
        node, route = stack.pop()
        for nxt in callees(node):
            if nxt == goal:
                return [*route, nxt]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*route, nxt]))
    return None
