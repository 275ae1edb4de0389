"""Config fields made of plain references (`{{ fetch.items }}`, `Build {{ inputs.n }}`), resolved
without the sandbox.

Following a dotted path of object keys through JSON data runs no user code, so such a field needs
neither Jinja nor a sandbox process. Neither does integer arithmetic with one literal
(`{{ shaped.n * 2 }}`, `{{ inputs.page + 1 }}`): when the reference holds an int, `+`, `-` and `*`
are Python's own, with the sandbox's size checks. The answer is the sandbox's own (a lone reference's value as
JSON data, or text with each reference's text in its place, within the same output limits) or
nothing: anything else (another expression, a tag, a missing key, a value that is not JSON data or
whose text is JSON, a reserved name, an output over a limit) goes to the sandbox, which gives every
error as before.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from app.engine.templating.errors import TemplateError
from app.engine.templating.limits import (
    MAX_INT_BITS,
    MAX_OUTPUT_BYTES,
    MAX_TOTAL_OUTPUT_BYTES,
    check_text,
    is_literal,
)

# `name.name...`: no private (`_`) names, no item access.
_NAMES = r"[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)*"
_PATH = rf"({_NAMES})"
# A decimal literal as Jinja's lexer reads it (no `_`, no leading zero), small enough to stay an int.
_INT = r"(?:0|[1-9][0-9]{0,17})"
# `{{ name.name... }}`: no whitespace control.
_PLACEHOLDER = rf"\{{\{{[ \t\n]*{_PATH}[ \t\n]*\}}\}}"
# In a config field, a reference may also meet one integer literal: `{{ name.name * 2 }}`.
_FIELD = rf"\{{\{{[ \t\n]*({_NAMES}(?:[ \t\n]*[-+*][ \t\n]*{_INT})?)[ \t\n]*\}}\}}"
_ARITHMETIC = re.compile(rf"({_NAMES})[ \t\n]*([-+*])[ \t\n]*({_INT})")
# A field that is one placeholder, ASCII whitespace around: it takes the value with its type.
_REFERENCE = re.compile(rf"[ \t\n]*{_FIELD}[ \t\n]*")
_PLACEHOLDERS = re.compile(_FIELD)
# A `when` that is one reference, in braces or bare.
_CONDITION = re.compile(rf"[ \t\n]*(?:{_PLACEHOLDER}|{_PATH})[ \t\n]*")
# Names Jinja reads as constants or operators, or provides itself, rather than looking them up.
_RESERVED = frozenset(
    {"true", "false", "none", "True", "False", "None", "and", "or", "not", "in", "is", "if", "else"}
    | {"self", "loop", "varargs", "kwargs", "caller"}
)


class _NotPlain(Exception):
    """The reference cannot be answered here; the sandbox answers it."""


class _Sizes:
    """The sandbox's accounting of an expression's value against the output limit."""

    def __init__(self) -> None:
        self.size = 0

    def count(self, size: int) -> None:
        self.size += size
        if self.size > MAX_OUTPUT_BYTES:
            raise _NotPlain


def _text(value: str, sizes: _Sizes | None) -> str:
    try:
        check_text(value)
    except TemplateError:
        raise _NotPlain from None
    if sizes is not None:
        sizes.count(len(value) + 2)
    return str(value)


def _export(value: Any, sizes: _Sizes) -> Any:
    """A copy of `value` as the sandbox would answer it, sharing nothing with the context."""
    if value is None or isinstance(value, bool):
        sizes.count(5)
        return value
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise _NotPlain
        sizes.count(value.bit_length() // 3 + 2)
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _NotPlain
        sizes.count(24)
        return float(value)
    if isinstance(value, str):
        return _text(value, sizes)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return _text(value.isoformat(), sizes)
    if isinstance(value, uuid.UUID):
        return _text(str(value), sizes)
    if isinstance(value, dict):
        sizes.count(2)
        exported: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NotPlain
            exported[_text(key, None)] = _export(item, sizes)
        return exported
    if isinstance(value, list | tuple):
        sizes.count(2)
        return [_export(item, sizes) for item in value]
    raise _NotPlain


def _lookup(reference: str, context: Mapping[str, Any]) -> Any:
    path = reference.split(".")
    if path[0] in _RESERVED or path[0] not in context:
        raise _NotPlain
    value = context[path[0]]
    for name in path[1:]:
        # Dotted access reads an object's key first; everything else (methods, attributes) is Jinja's.
        if not isinstance(value, dict) or name not in value:
            raise _NotPlain
        value = value[name]
    return value


def _value(expression: str, context: Mapping[str, Any]) -> Any:
    """A placeholder's value: a reference's, or an int reference's `+`, `-` or `*` with a literal."""
    match = _ARITHMETIC.fullmatch(expression)
    if match is None:
        return _lookup(expression, context)
    left = _lookup(match.group(1), context)
    # Only a true int: a bool, float or string has other rules in Jinja (and errors stay the sandbox's).
    if type(left) is not int:
        raise _NotPlain
    operator, right = match.group(2), int(match.group(3))
    if operator == "*":
        # The sandbox refuses a product by the operands' sizes, before computing it.
        if left.bit_length() + right.bit_length() > MAX_INT_BITS:
            raise _NotPlain
        return left * right
    return left + right if operator == "+" else left - right


def _as_text(value: Any) -> str:
    """A value's text inside a template, for the values whose text is not JSON (`to_text`)."""
    if isinstance(value, str):
        return str(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and value.bit_length() <= MAX_INT_BITS:
        return str(int(value))
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    raise _NotPlain


def _render_text(source: str, context: Mapping[str, Any]) -> tuple[str, int]:
    # Split into text, reference, text, ...; Jinja would turn a carriage return into a newline.
    pieces = _PLACEHOLDERS.split(source)
    if len(pieces) == 1 or "\r" in source:
        raise _NotPlain
    last = len(pieces) - 1
    parts: list[str] = []
    for index, piece in enumerate(pieces):
        if index % 2:
            parts.append(_as_text(_value(piece, context)))
            continue
        # A brace touching a placeholder would change how Jinja reads it: leave that to Jinja.
        touching = (index < last and piece.endswith("{")) or (index > 0 and piece.startswith("}"))
        if touching or not is_literal(piece):
            raise _NotPlain
        parts.append(piece)
    text = "".join(parts)
    try:
        return text, check_text(text)
    except TemplateError:
        raise _NotPlain from None


def _resolve(source: str, context: Mapping[str, Any]) -> tuple[Any, int]:
    match = _REFERENCE.fullmatch(source)
    if match is None:
        return _render_text(source, context)
    sizes = _Sizes()
    return _export(_value(match.group(1), context), sizes), sizes.size


def resolve_references(sources: Sequence[str], context: Mapping[str, Any]) -> list[Any] | None:
    """The values of `sources` if every one is made of plain references the sandbox would answer,
    else None (then all of them go to the sandbox, which also keeps the total output limit whole)."""
    values: list[Any] = []
    total = 0
    try:
        for source in sources:
            value, size = _resolve(source, context)
            total += size
            if total > MAX_TOTAL_OUTPUT_BYTES:
                return None
            values.append(value)
    except (_NotPlain, RecursionError):
        return None
    return values


def resolve_predicate(expression: str, context: Mapping[str, Any]) -> bool | None:
    """The truth of a `when` that is one plain reference to JSON data (`inputs.notify`), else None."""
    match = _CONDITION.fullmatch(expression)
    if match is None:
        return None
    try:
        # Exported only to be sure it is JSON data the sandbox would accept; truth is Python's.
        return bool(_export(_lookup(match.group(1) or match.group(2), context), _Sizes()))
    except (_NotPlain, RecursionError):
        return None
