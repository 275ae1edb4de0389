"""The operator table: for each operator, the operand it accepts and the test it compiles to.

A test receives the value found at a payload path (the path is known to exist) and answers a bool.
Tests are built once per filter and close over their operand, so evaluating one is a type check and
a comparison: no parsing, no operator lookup. They never raise on JSON values.

Equality is JSON equality between scalars: numbers compare by value (1 == 1.0), booleans are not
numbers (true != 1), strings compare exactly, null equals only null, and arrays or objects equal no
scalar operand.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import re2

from app.definitions.pointers import child as child_pointer
from app.definitions.regex import match_only_options
from app.engine.filters.limits import (
    MAX_LIST_ITEMS,
    MAX_PATTERN_LENGTH,
    MAX_TEXT_LENGTH,
    REGEX_MAX_MEM,
)

ValueTest = Callable[[Any], bool]
Problems = list[tuple[str, str]]

_SCALAR_TYPES = ["string", "number", "boolean", "null"]
_NUMBER_TYPES = (int, float)


def _is_number(value: Any) -> bool:
    # Exact types: bool is a subclass of int, and JSON decodes to no other number type.
    return type(value) in _NUMBER_TYPES


def _check_text(value: Any, at: str) -> Problems:
    if not isinstance(value, str):
        return [(at, "must be a string")]
    if len(value) > MAX_TEXT_LENGTH:
        return [(at, f"must be at most {MAX_TEXT_LENGTH} characters")]
    return []


def _check_number(value: Any, at: str) -> Problems:
    if not _is_number(value):
        return [(at, "must be a number (booleans are not numbers)")]
    if isinstance(value, float) and not math.isfinite(value):
        return [(at, "must be a finite number")]
    return []


def _check_scalar(value: Any, at: str) -> Problems:
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, str):
        return _check_text(value, at)
    if _is_number(value):
        return _check_number(value, at)
    return [(at, "must be a string, number, boolean or null")]


def _check_boolean(value: Any, at: str) -> Problems:
    return [] if isinstance(value, bool) else [(at, "must be true or false")]


def _check_scalar_list(value: Any, at: str) -> Problems:
    if not isinstance(value, list):
        return [(at, "must be an array of strings, numbers, booleans or nulls")]
    if len(value) > MAX_LIST_ITEMS:
        return [(at, f"must have at most {MAX_LIST_ITEMS} items")]
    return [
        problem
        for index, item in enumerate(value)
        for problem in _check_scalar(item, child_pointer(at, index))
    ]


_REGEX_OPTIONS = match_only_options(REGEX_MAX_MEM)


def _compile_pattern(pattern: str) -> Any:
    return re2.compile(pattern, _REGEX_OPTIONS)


def _check_pattern(value: Any, at: str) -> Problems:
    if not isinstance(value, str):
        return [(at, "must be a string")]
    if len(value) > MAX_PATTERN_LENGTH:
        return [(at, f"must be at most {MAX_PATTERN_LENGTH} characters")]
    try:
        _compile_pattern(value)
    except re2.error as exc:
        detail = exc.args[0].decode(errors="replace") if exc.args and isinstance(exc.args[0], bytes) else exc
        return [(at, f"not a valid RE2 pattern: {detail}")]
    except UnicodeEncodeError:
        return [(at, "not a valid RE2 pattern: it is not valid Unicode text")]
    return []


@dataclass(frozen=True)
class Operand:
    """A kind of operand: its name in FILTER_SCHEMA's `$defs`, its JSON Schema, and its check."""

    name: str
    schema: dict[str, Any]
    check: Callable[[Any, str], Problems]


SCALAR = Operand(
    "scalar",
    {"type": _SCALAR_TYPES, "maxLength": MAX_TEXT_LENGTH, "description": "A JSON scalar."},
    _check_scalar,
)
TEXT = Operand("text", {"type": "string", "maxLength": MAX_TEXT_LENGTH}, _check_text)
PATTERN = Operand(
    "pattern",
    {"type": "string", "maxLength": MAX_PATTERN_LENGTH, "description": "An RE2 pattern, searched anywhere."},
    _check_pattern,
)
NUMBER = Operand("number", {"type": "number"}, _check_number)
BOOLEAN = Operand("boolean", {"type": "boolean"}, _check_boolean)
SCALAR_LIST = Operand(
    "scalar_list",
    {"type": "array", "maxItems": MAX_LIST_ITEMS, "items": {"$ref": "#/$defs/scalar"}},
    _check_scalar_list,
)


def _equals(operand: Any) -> ValueTest:
    if operand is None:
        return lambda value: value is None
    if operand is True:
        return lambda value: value is True
    if operand is False:
        return lambda value: value is False
    if isinstance(operand, str):
        # Among JSON values only an equal string compares equal to a string.
        return lambda value: value == operand
    return lambda value: value == operand and not isinstance(value, bool)


def _not_equals(operand: Any) -> ValueTest:
    equals = _equals(operand)
    return lambda value: not equals(value)


def _starts_with(operand: str) -> ValueTest:
    return lambda value: isinstance(value, str) and value.startswith(operand)


def _ends_with(operand: str) -> ValueTest:
    return lambda value: isinstance(value, str) and value.endswith(operand)


def _contains(operand: Any) -> ValueTest:
    equals = _equals(operand)
    if isinstance(operand, str):
        return lambda value: (
            operand in value
            if isinstance(value, str)
            else isinstance(value, list) and any(map(equals, value))
        )
    return lambda value: isinstance(value, list) and any(map(equals, value))


def _regex(operand: str) -> ValueTest:
    search = _compile_pattern(operand).search

    def test(value: Any) -> bool:
        if not isinstance(value, str):
            return False
        try:
            # Searching UTF-8 bytes gives the same answer as searching the str, and skips the
            # wrapper's translation of match offsets back to characters (about half the cost).
            return search(value.encode()) is not None
        except UnicodeEncodeError:  # a lone surrogate: not text RE2 can read
            return False

    return test


# Written out rather than built from `operator.gt` & co: one call less per evaluation.
def _gt(operand: float) -> ValueTest:
    return lambda value: type(value) in _NUMBER_TYPES and value > operand


def _gte(operand: float) -> ValueTest:
    return lambda value: type(value) in _NUMBER_TYPES and value >= operand


def _lt(operand: float) -> ValueTest:
    return lambda value: type(value) in _NUMBER_TYPES and value < operand


def _lte(operand: float) -> ValueTest:
    return lambda value: type(value) in _NUMBER_TYPES and value <= operand


def _in(operand: list[Any]) -> ValueTest:
    # Booleans live apart: True == 1 and hash(True) == hash(1), yet JSON says true is not 1.
    booleans = frozenset(item for item in operand if isinstance(item, bool))
    others = frozenset(item for item in operand if not isinstance(item, bool))

    def test(value: Any) -> bool:
        if isinstance(value, bool):
            return value in booleans
        try:
            return value in others
        except TypeError:  # arrays and objects are unhashable, and never equal a scalar
            return False

    return test


def _not_in(operand: list[Any]) -> ValueTest:
    member = _in(operand)
    return lambda value: not member(value)


@dataclass(frozen=True)
class Operator:
    """An operator: the operand it takes, how it compiles to a test, and its one-line meaning.

    `build` is None only for `exists`, which is about the path rather than the value found there.
    """

    operand: Operand
    build: Callable[[Any], ValueTest] | None
    description: str


OPERATORS: dict[str, Operator] = {
    "equals": Operator(SCALAR, _equals, "JSON-equal to the operand."),
    "not_equals": Operator(SCALAR, _not_equals, "Present and not JSON-equal to the operand."),
    "starts_with": Operator(TEXT, _starts_with, "A string starting with the operand."),
    "ends_with": Operator(TEXT, _ends_with, "A string ending with the operand."),
    "contains": Operator(
        SCALAR, _contains, "A string containing the operand (a string), or an array with an item equal to it."
    ),
    "regex": Operator(PATTERN, _regex, "A string in which the RE2 pattern matches somewhere."),
    "gt": Operator(NUMBER, _gt, "A number greater than the operand."),
    "gte": Operator(NUMBER, _gte, "A number greater than or equal to the operand."),
    "lt": Operator(NUMBER, _lt, "A number less than the operand."),
    "lte": Operator(NUMBER, _lte, "A number less than or equal to the operand."),
    "in": Operator(SCALAR_LIST, _in, "JSON-equal to one of the operand's items."),
    "not_in": Operator(SCALAR_LIST, _not_in, "Present and JSON-equal to none of the operand's items."),
    "exists": Operator(BOOLEAN, None, "true: the path is present (null counts); false: it is absent."),
}

OPERANDS: tuple[Operand, ...] = (SCALAR, TEXT, PATTERN, NUMBER, BOOLEAN, SCALAR_LIST)
