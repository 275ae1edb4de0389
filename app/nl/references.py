"""A proposal may only name what the space has: a capability id must start with the tool prefix of one
of its MCP connections or databases, or with a namespace its capabilities already use.

The validator refuses an unknown capability id; this check says which part is missing, so a model (or
a person) told `unknown_connection` knows no connection or database answers to that prefix, and the
problem points at the exact field (a `call_tool` step's `capability`, an agent's `tools` entry).
"""

from __future__ import annotations

from typing import Any

from app.definitions.pointers import join
from app.engine.validation import Problem, Vocabulary
from app.engine.validation.templates import is_template
from app.nl.context import SpaceNames
from app.nl.usage import AGENT_ACTIONS, steps, tool_patterns

UNKNOWN_CONNECTION = "unknown_connection"


def reference_problems(document: Any, names: SpaceNames, vocabulary: Vocabulary) -> list[Problem]:
    """`unknown_connection` for each capability id or tool pattern whose first segment nothing in the
    space answers to."""
    if not isinstance(document, dict):
        return []
    known = {capability.id.split(".", 1)[0] for capability in vocabulary.capabilities}
    known |= {prefix for _, _, prefix in names.prefixes}
    problems: list[Problem] = []
    for path, step in steps(document):
        config = step.get("config")
        if not isinstance(config, dict):
            continue
        capability = config.get("capability")
        if step.get("action") == "call_tool" and isinstance(capability, str) and not is_template(capability):
            problems += _unknown((*path, "config", "capability"), capability, known, names)
        if step.get("action") in AGENT_ACTIONS:
            for index, pattern in tool_patterns(step):
                problems += _unknown((*path, "config", "tools", index), pattern, known, names)
    return problems


def _unknown(
    path: tuple[str | int, ...], reference: str, known: set[str], names: SpaceNames
) -> list[Problem]:
    first = reference.split(".", 1)[0]
    if "." not in reference or any(c in first for c in "*?[") or first in known:
        return []
    offered = ", ".join(f"{prefix} ({kind} {name!r})" for kind, name, prefix in names.prefixes) or "none yet"
    return [
        Problem(
            join(*path),
            UNKNOWN_CONNECTION,
            f"no MCP connection or database of this space has the tool prefix {first!r}"
            f" (connected: {offered})",
        )
    ]
