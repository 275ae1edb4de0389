"""Walking a definition: its nodes, its steps, and the capabilities each step may call (and who chooses)."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from app.definitions.pointers import join
from app.engine.validation import Vocabulary
from app.engine.validation.plan_scope import walk_document
from app.engine.validation.templates import is_template
from app.nl.permissions import ChosenBy
from app.registry import Capability

AGENT_ACTIONS = frozenset({"agent_task"})


@dataclass(frozen=True)
class CapabilityUse:
    """One capability a step may call: at `path`, chosen by the definition (tight) or by an agent."""

    path: str
    capability: Capability
    chosen_by: ChosenBy


def steps(document: dict[str, Any]) -> Iterator[tuple[tuple[str | int, ...], dict[str, Any]]]:
    """Plan steps at every depth, then on_failure steps, each with its path; a step whose action is not
    a name (a schema error the validator reports) is left out of these checks."""
    for located in walk_document(document):
        action = located.step.get("action")
        if action is None or isinstance(action, str):
            yield located.where, located.step


def tool_patterns(step: dict[str, Any]) -> list[tuple[int, str]]:
    config = step.get("config")
    tools = config.get("tools") if isinstance(config, dict) else None
    return [
        (index, pattern)
        for index, pattern in enumerate(tools if isinstance(tools, list) else [])
        if isinstance(pattern, str) and not is_template(pattern)
    ]


def matching(pattern: str, vocabulary: Vocabulary) -> list[Capability]:
    return sorted(
        (item for item in vocabulary.capabilities if fnmatch.fnmatchcase(item.id, pattern)),
        key=lambda c: c.id,
    )


def capability_uses(document: Any, vocabulary: Vocabulary) -> list[CapabilityUse]:
    """Every capability the definition's steps may call, in document order."""
    if not isinstance(document, dict):
        return []
    uses: list[CapabilityUse] = []
    for path, step in steps(document):
        action = vocabulary.actions.get(step["action"]) if isinstance(step.get("action"), str) else None
        if action is None:
            continue
        for capability_id in action.uses_capabilities:
            capability = vocabulary.capabilities.get(capability_id)
            if capability is not None:
                uses.append(CapabilityUse(join(*path), capability, "definition"))
        if action.type in AGENT_ACTIONS:
            for index, pattern in tool_patterns(step):
                for capability in matching(pattern, vocabulary):
                    uses.append(CapabilityUse(join(*path, "config", "tools", index), capability, "agent"))
    return uses


def used_capability_ids(documents: list[dict[str, Any]], vocabulary: Vocabulary) -> set[str]:
    return {use.capability.id for document in documents for use in capability_uses(document, vocabulary)}


def walk(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """Every node of a JSON document with its path, parents before children."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, path)]
    while stack:
        node, where = stack.pop()
        yield where, node
        if isinstance(node, dict):
            stack.extend((child, (*where, key)) for key, child in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((child, (*where, index)) for index, child in reversed(list(enumerate(node))))
