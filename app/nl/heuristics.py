"""Two review flags from rules of thumb: templates that read unusually, and agents that a tight step
would replace.

`unusual_template` (a template is hard to check at a glance, so worth a look):
- it reads a path more than MAX_DEPTH segments deep (`{{ steps.a.b.c.d.e }}`), or longer than
  MAX_EXPRESSION characters inside its braces;
- or it uses a filter outside the everyday ones (COMMON_FILTERS); allowed, but rarely what a plain
  request needs.

`agent_could_be_tight`: an agent_task that names exactly one tool, literally (no pattern), most often
only calls that tool with arguments it could be given: a `call_tool` step does the same without a
model, its cost, or the approval an agent-chosen write needs.
"""

from __future__ import annotations

import re
from typing import Any

from app.definitions.pointers import join
from app.nl.drafts import Flag
from app.nl.usage import AGENT_ACTIONS, steps, tool_patterns, walk

MAX_DEPTH = 5
MAX_EXPRESSION = 200
COMMON_FILTERS = frozenset(
    {
        "default",
        "tojson",
        "length",
        "join",
        "lower",
        "upper",
        "trim",
        "first",
        "last",
        "int",
        "float",
        "string",
        "round",
        "replace",
        "truncate",
        "title",
        "capitalize",
        "map",
        "select",
        "selectattr",
        "rejectattr",
        "sort",
        "list",
        "unique",
        "abs",
        "min",
        "max",
        "sum",
    }
)
_EXPRESSION = re.compile(r"\{\{(.*?)\}\}|\{%(.*?)%\}", re.DOTALL)
_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\s*(?:\.\s*[A-Za-z_][A-Za-z0-9_]*|\[[^\]]*\]))+")
_SEGMENT = re.compile(r"\.\s*[A-Za-z_]|\[")
_FILTER = re.compile(r"\|\s*([A-Za-z_][A-Za-z0-9_]*)")


def heuristic_flags(document: dict[str, Any]) -> list[Flag]:
    """The rule-of-thumb flags of a valid definition, in document order."""
    return _templates(document) + _tight_agents(document)


def _templates(document: dict[str, Any]) -> list[Flag]:
    found: list[Flag] = []
    for path, node in walk(document):
        if not isinstance(node, str) or ("{{" not in node and "{%" not in node):
            continue
        reasons = _unusual(node)
        if reasons:
            found.append(Flag(path=join(*path), code="unusual_template", message="; ".join(reasons)))
    return found


def _unusual(template: str) -> list[str]:
    reasons: list[str] = []
    for match in _EXPRESSION.finditer(template):
        expression = match.group(1) or match.group(2) or ""
        if len(expression.strip()) > MAX_EXPRESSION:
            reasons.append(f"an expression of {len(expression.strip())} characters; split it into steps")
        for path in _PATH.findall(expression):
            depth = len(_SEGMENT.findall(path)) + 1
            if depth > MAX_DEPTH:
                reasons.append(f"reads {depth} levels deep ({path.strip()[:60]}); check the path exists")
        for name in _FILTER.findall(expression):
            if name not in COMMON_FILTERS:
                reasons.append(f"uses the filter {name!r}, rarely needed; check it does what is meant")
    return list(dict.fromkeys(reasons))


def _tight_agents(document: dict[str, Any]) -> list[Flag]:
    found: list[Flag] = []
    for path, step in steps(document):
        if step.get("action") not in AGENT_ACTIONS:
            continue
        named = [
            (index, pattern) for index, pattern in tool_patterns(step) if not any(c in pattern for c in "*?[")
        ]
        patterns = tool_patterns(step)
        if len(patterns) == 1 and len(named) == 1:
            found.append(
                Flag(
                    path=join(*path),
                    code="agent_could_be_tight",
                    message=f"this agent can only call {named[0][1]}: a call_tool step with the arguments"
                    " written out does the same without a model",
                )
            )
    return found
