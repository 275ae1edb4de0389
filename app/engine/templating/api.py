"""The public functions of the template engine (re-exported by the package).

Each call checks sizes, skips strings that hold no template syntax, and otherwise makes exactly one
round trip to a sandbox process, whatever the number of templates involved; a config whose templated
fields are all plain references (`{{ fetch.items }}`), or a `when` that is one, is answered without
one (`references.py`).
`arender_value` and `aevaluate_predicate` are the same calls for code on an event loop: the round
trip waits off the loop. Contexts are JSON data: the caller passes plain dicts, lists, strings,
numbers, booleans and null (datetimes and UUIDs are converted to ISO strings on the way); anything
else is refused with `TemplateRuntimeError`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from app.definitions.pointers import child
from app.engine.templating.errors import (
    TOO_COMPLEX,
    TemplateError,
    TemplateLimitError,
    TemplateProblem,
    error_from_wire,
)
from app.engine.templating.limits import check_source, check_text, is_literal
from app.engine.templating.pool import default_pool
from app.engine.templating.protocol import encode_request
from app.engine.templating.references import resolve_predicate, resolve_references

# Keys of the `run` namespace; `failed_step_id` and `error` are present only in on_failure steps.
RUN_FIELDS: tuple[str, ...] = (
    "id",
    "started_at",
    "automation_id",
    "automation_name",
    "automation_version",
    "trigger_type",
    "trigger_id",
    "space_id",
    "creator_id",
    "attempt",
    "failed_step_id",
    "error",
)

_EMPTY: dict[str, Any] = {}
_ANALYSIS_CACHE_SIZE = 1024


def _request(
    op: str,
    sources: list[str],
    context: Mapping[str, Any],
    *,
    predicate: bool = False,
    pointers: list[str] | None = None,
) -> list[Any]:
    payload = encode_request(op, sources, context, predicate=predicate)
    return _results(default_pool().exchange(payload, len(sources)), sources, pointers)


async def _arequest(
    op: str,
    sources: list[str],
    context: Mapping[str, Any],
    *,
    predicate: bool = False,
    pointers: list[str] | None = None,
) -> list[Any]:
    payload = encode_request(op, sources, context, predicate=predicate)
    return _results(await default_pool().aexchange(payload, len(sources)), sources, pointers)


def _values(sources: list[str], context: Mapping[str, Any], pointers: list[str]) -> list[Any]:
    if not sources:
        return []
    resolved = resolve_references(sources, context)
    return resolved if resolved is not None else _request("value", sources, context, pointers=pointers)


async def _avalues(sources: list[str], context: Mapping[str, Any], pointers: list[str]) -> list[Any]:
    if not sources:
        return []
    resolved = resolve_references(sources, context)
    if resolved is not None:
        return resolved
    return await _arequest("value", sources, context, pointers=pointers)


def _results(reply: Any, sources: list[str], pointers: list[str] | None) -> list[Any]:
    if not isinstance(reply, dict):
        raise TemplateError("the template sandbox sent an invalid reply")
    if "error" in reply:
        error = error_from_wire(reply["error"])
        index = reply.get("index")
        if pointers is not None and isinstance(index, int) and 0 <= index < len(pointers):
            error = error.located(pointer=pointers[index])
        raise error
    results = reply.get("results")
    if not isinstance(results, list) or len(results) != len(sources):
        raise TemplateError("the template sandbox sent an invalid reply")
    return results


def render_template(template: str, context: Mapping[str, Any]) -> str:
    """Render a template to text.

    Strings render as themselves, null as nothing, other values as JSON. Raises a `TemplateError`
    subclass for every refusal: syntax, sandbox violations, limits, undefined names, bad values.
    """
    check_source(template)
    if is_literal(template):
        check_text(template)
        return template
    (text,) = _request("render", [template], context)
    return str(text)


def evaluate_predicate(expression: str, context: Mapping[str, Any]) -> bool:
    """Evaluate a step's `when`: either `{{ expr }}` or a bare `expr`; the truthiness of its value.

    Empty strings, lists and objects, zero, false and null are false; everything else is true.
    """
    check_source(expression)
    resolved = resolve_predicate(expression, context)
    if resolved is not None:
        return resolved
    (result,) = _request("predicate", [expression], context, predicate=True)
    return bool(result)


async def aevaluate_predicate(expression: str, context: Mapping[str, Any]) -> bool:
    """`evaluate_predicate` for code on an event loop: the sandbox round trip does not block it."""
    check_source(expression)
    resolved = resolve_predicate(expression, context)
    if resolved is not None:
        return resolved
    (result,) = await _arequest("predicate", [expression], context, predicate=True)
    return bool(result)


def _collect(value: Any, pointer: str, sources: list[str], pointers: list[str]) -> None:
    if isinstance(value, str):
        try:
            check_source(value)
        except TemplateError as error:
            raise error.located(pointer=pointer) from None
        if not is_literal(value):
            sources.append(value)
            pointers.append(pointer)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _collect(item, child(pointer, str(key)), sources, pointers)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _collect(item, child(pointer, index), sources, pointers)


def _rebuild(value: Any, pointer: str, rendered: dict[str, Any]) -> Any:
    if isinstance(value, str):
        if pointer in rendered:
            return rendered[pointer]
        try:
            check_text(value)
        except TemplateError as error:
            raise error.located(pointer=pointer) from None
        return value
    if isinstance(value, Mapping):
        return {key: _rebuild(item, child(pointer, str(key)), rendered) for key, item in value.items()}
    if isinstance(value, list | tuple):
        items = [_rebuild(item, child(pointer, index), rendered) for index, item in enumerate(value)]
        return type(value)(items) if isinstance(value, tuple) else items
    return value


def render_value(value: Any, context: Mapping[str, Any]) -> Any:
    """Render every string leaf of a JSON-like value (a step config) in one sandbox round trip.

    A string that is exactly one `{{ expr }}` (whitespace around allowed) becomes the expression's
    native value, so lists and objects pass between steps typed; other strings render to text.
    Non-string leaves and object keys are returned unchanged. Errors carry the JSON `pointer` of
    the failing leaf.
    """
    sources: list[str] = []
    pointers: list[str] = []
    try:
        _collect(value, "", sources, pointers)
        results = _values(sources, context, pointers)
        return _rebuild(value, "", dict(zip(pointers, results, strict=True)))
    except RecursionError:
        raise TemplateLimitError("the value to render is nested too deeply", code=TOO_COMPLEX) from None


async def arender_value(value: Any, context: Mapping[str, Any]) -> Any:
    """`render_value` for code on an event loop: the sandbox round trip does not block it."""
    sources: list[str] = []
    pointers: list[str] = []
    try:
        _collect(value, "", sources, pointers)
        results = await _avalues(sources, context, pointers)
        return _rebuild(value, "", dict(zip(pointers, results, strict=True)))
    except RecursionError:
        raise TemplateLimitError("the value to render is nested too deeply", code=TOO_COMPLEX) from None


# Both answers depend on the source alone, and a definition is validated on every save: cache them.
@functools.lru_cache(maxsize=_ANALYSIS_CACHE_SIZE)
def _problems(template: str, predicate: bool) -> tuple[TemplateProblem, ...]:
    (problems,) = _request("check", [template], _EMPTY, predicate=predicate)
    return tuple(TemplateProblem(str(code), str(message), line) for code, message, line in problems)


@functools.lru_cache(maxsize=_ANALYSIS_CACHE_SIZE)
def _names(template: str, predicate: bool) -> frozenset[str]:
    (names,) = _request("names", [template], _EMPTY, predicate=predicate)
    return frozenset(str(name) for name in names)


def check_template(template: str, *, predicate: bool = False) -> list[TemplateProblem]:
    """Save-time check without rendering: syntax, unknown filters and tests, private access, size.

    With `predicate=True` the string is checked as a `when` expression (`{{ expr }}` or bare `expr`).
    Returns an empty list when the template is fine.
    """
    try:
        check_source(template)
    except TemplateError as error:
        return [TemplateProblem(error.code, error.message, None)]
    if is_literal(template) and not predicate:
        return []
    return list(_problems(template, predicate))


def referenced_names(template: str, *, predicate: bool = False) -> set[str]:
    """The top-level variable names a template reads (e.g. {"inputs", "fetch"}).

    With `predicate=True` the string is read as a `when` expression. Raises `TemplateSyntaxError`
    when the template does not parse.
    """
    check_source(template)
    if is_literal(template) and not predicate:
        return set()
    return set(_names(template, predicate))
