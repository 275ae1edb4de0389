"""The preview of a block (`if`, `for_each`): whether its branch or its item count is known before the
run, from the inputs, the trigger and the run alone; otherwise which bound outputs it waits for."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from app.definitions.automation import ForEachStep, IfStep
from app.engine.filters import FilterError, compile_filter
from app.engine.templating import TemplateError, arender_value, referenced_names

KNOWN_BEFORE_RUN = frozenset({"inputs", "trigger", "run"})
OPERATOR_KEYS = ("$and", "$or")


def _field_roots(expr: Any) -> Iterator[str]:
    """The first segment of every field a filter reads (`inputs` for `inputs.amount`)."""
    if not isinstance(expr, dict):
        return
    for key, value in expr.items():
        if key in OPERATOR_KEYS and isinstance(value, list):
            for inner in value:
                yield from _field_roots(inner)
        elif key == "$not":
            yield from _field_roots(value)
        else:
            yield key.split(".", 1)[0]


def _template_names(value: Any) -> set[str]:
    names: set[str] = set()
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str) and "{" in node:
            try:
                names |= referenced_names(node)
            except TemplateError:
                continue
    return names


async def block_entry(
    phase: str, index: int, step: IfStep | ForEachStep, scope: Mapping[str, Any]
) -> dict[str, Any]:
    """A block's preview entry: the branch an `if` takes, the number of items a `for_each` walks."""
    entry: dict[str, Any] = {"phase": phase, "index": index, "step_id": step.step_id, "calls": []}
    if isinstance(step, IfStep):
        entry["action"] = "if"
        entry["condition"] = await _condition(step.if_.condition, scope)
        return entry
    entry["action"] = "for_each"
    block = step.for_each
    entry["items"] = {"count": None, "max_items": block.max_items, "concurrency": block.concurrency}
    waits = sorted(_template_names(block.items) - KNOWN_BEFORE_RUN)
    if waits:
        entry["items"]["waits_for"] = waits
        return entry
    try:
        items = await arender_value(block.items, dict(scope))
    except TemplateError as exc:
        entry["error"] = {"code": exc.code, "message": exc.message}
        return entry
    if isinstance(items, list):
        entry["items"]["count"] = len(items)
    return entry


async def _condition(condition: dict[str, Any], scope: Mapping[str, Any]) -> dict[str, Any]:
    waits = sorted((set(_field_roots(condition)) | _template_names(condition)) - KNOWN_BEFORE_RUN)
    if waits:
        return {"decided": False, "waits_for": waits}
    try:
        rendered = await arender_value(condition, dict(scope))
        matches = compile_filter(rendered)(dict(scope))
    except (TemplateError, FilterError) as exc:
        return {
            "decided": False,
            "error": {"code": getattr(exc, "code", "invalid_filter"), "message": str(exc)},
        }
    return {"decided": True, "value": matches, "branch": "then" if matches else "else"}
