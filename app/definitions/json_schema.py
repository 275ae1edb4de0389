"""JSON Schema for the whole service: one place that checks schema documents and validates values.

Every schema a user, a model or an outside server supplies (inputs schemas, agent output schemas, action
and capability schemas, tool schemas, event payload schemas) goes through here, never through
`jsonschema` directly, because here:

- `pattern`, `patternProperties` (and the `additionalProperties` / `unevaluatedProperties` checks that
  read them) and `format: "regex"` run on RE2, in time linear in the input; a pattern RE2 refuses
  (backreferences, lookaround) is refused when the schema is checked, with a pointer to it;
- `uniqueItems` is linear (the library falls back to comparing every pair for objects);
- every validation runs on a budget of keyword evaluations, so a schema whose branches multiply
  (`oneOf` over `$ref`s that `oneOf` again) stops with `ValidationTooCostly` instead of running for hours;
- validators are compiled once per schema content and cached.
"""

from __future__ import annotations

import contextvars
import functools
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any

import jsonschema._keywords
import jsonschema._legacy_keywords
import jsonschema._utils
from jsonschema import Draft202012Validator, FormatChecker, validators
from jsonschema.exceptions import SchemaError, ValidationError
from pydantic import AfterValidator

from app.definitions import regex
from app.definitions.pointers import join

MAX_SCHEMA_DEPTH = 32
MAX_PROBLEMS = 20
MAX_MESSAGE_LENGTH = 300
# Keyword evaluations one validation may spend (a few seconds of CPU at most, off the event loop):
# enough for a 1 MB body of small items against a typed schema.
DEFAULT_BUDGET = 1_000_000
DIALECT = "https://json-schema.org/draft/2020-12/schema"
_CACHE_SIZE = 256


class SchemaRefused(ValueError):
    """A schema document we will not evaluate; `pointer` locates the problem inside the schema."""

    def __init__(self, message: str, pointer: str = "") -> None:
        super().__init__(message)
        self.pointer = pointer


class ValidationTooCostly(ValueError):
    """The validation spent its budget (or recursed without end) before it could decide."""


class _Re2Search:
    """Stands in for `re` inside jsonschema's keyword code, which only ever calls `re.search`.

    The library has no hook for its regex engine; replacing the name it looks up is the one way to
    cover `additionalProperties` and `unevaluatedProperties`, whose helpers match `patternProperties`
    keys themselves. A test pins that `search` is all those modules use.
    """

    @staticmethod
    def search(pattern: str, text: str) -> bool:
        return regex.search(pattern, text)


for _module in (jsonschema._keywords, jsonschema._legacy_keywords, jsonschema._utils):
    _module.re = _Re2Search  # type: ignore[attr-defined]


def _is_re2_pattern(instance: object) -> bool:
    if isinstance(instance, str):
        regex.compile_pattern(instance)
    return True


# Checking a schema document: the library's formats, with `regex` meaning "RE2 accepts it".
_DOCUMENT_FORMATS = FormatChecker(formats=Draft202012Validator.FORMAT_CHECKER.checkers)
_DOCUMENT_FORMATS.checks("regex", raises=regex.PatternRefused)(_is_re2_pattern)
# Validating values: formats stay annotations (as the draft says), except `regex`, which is asserted.
_VALUE_FORMATS = FormatChecker(formats=())
_VALUE_FORMATS.checks("regex", raises=regex.PatternRefused)(_is_re2_pattern)


# ---------------------------------------------------------------------------------------------- budget


class _Meter:
    __slots__ = ("left",)

    def __init__(self, budget: int) -> None:
        self.left = budget


_METER: contextvars.ContextVar[_Meter | None] = contextvars.ContextVar("json_schema_meter", default=None)


# Following a reference costs several times a plain keyword (resolution, a new validator).
_KEYWORD_COST = {"$ref": 4, "$dynamicRef": 4}


def _metered(name: str, keyword: Callable[..., Any]) -> Callable[..., Any]:
    cost = _KEYWORD_COST.get(name, 1)

    @functools.wraps(keyword)
    def evaluate(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        meter = _METER.get()
        if meter is not None:
            meter.left -= cost
            if meter.left < 0:
                raise ValidationTooCostly("the value is too large or the schema too complex to check")
        return keyword(validator, value, instance, schema)

    return evaluate


def _canonical(value: Any) -> Any:
    """A hashable form in which JSON-equal values are equal (1 == 1.0, but true != 1)."""
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int | float):
        return ("n", int(value) if isinstance(value, float) and value.is_integer() else value)
    if isinstance(value, list):
        return ("l", tuple(_canonical(item) for item in value))
    if isinstance(value, dict):
        return ("d", frozenset((key, _canonical(item)) for key, item in value.items()))
    return ("v", value)


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not unique or not validator.is_type(instance, "array"):
        return
    seen: set[Any] = set()
    for item in instance:
        key = _canonical(item)
        if key in seen:
            yield ValidationError("has non-unique elements")
            return
        seen.add(key)


_Validator = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    validators={
        **{name: _metered(name, keyword) for name, keyword in Draft202012Validator.VALIDATORS.items()},
        "uniqueItems": _metered("uniqueItems", _unique_items),
    },
)


# -------------------------------------------------------------------------------------------- documents


def _depth(value: Any) -> int:
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(node, dict):
            stack.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in node)
    return deepest


# Schemas already accepted, by canonical JSON text: every fire and claim parses a stored definition, and
# meta-validating its inputs schema again costs milliseconds. Only acceptances are kept (a refusal is
# checked afresh, so its message never depends on the cache); bounded, oldest forgotten first.
ACCEPTED_SCHEMAS_SIZE = 4096
_accepted: dict[str, None] = {}
_accepted_lock = threading.Lock()


def _schema_text(schema: Any) -> str | None:
    try:
        return json.dumps(schema, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):  # not plain JSON, or too deep: checked every time
        return None


def check_schema_document(schema: dict[str, Any]) -> dict[str, Any]:
    """Refuse a schema that is not valid draft 2020-12, references outside itself, or has a pattern RE2
    cannot run; the `ValueError` names the place (a JSON pointer inside the schema) and the reason."""
    key = _schema_text(schema)
    if key is not None and key in _accepted:
        return schema
    _check_schema_document(schema)
    if key is not None:
        with _accepted_lock:
            _accepted[key] = None
            while len(_accepted) > ACCEPTED_SCHEMAS_SIZE:
                del _accepted[next(iter(_accepted))]
    return schema


def _check_schema_document(schema: dict[str, Any]) -> None:
    if _depth(schema) > MAX_SCHEMA_DEPTH:
        raise SchemaRefused(f"schema nests deeper than {MAX_SCHEMA_DEPTH} levels")
    try:
        Draft202012Validator.check_schema(schema, format_checker=_DOCUMENT_FORMATS)
    except SchemaError as exc:
        where = join(*exc.absolute_path)
        if exc.validator == "format" and isinstance(exc.cause, regex.PatternRefused):
            raise SchemaRefused(
                f"the pattern {_short(exc.instance)} at '{where}' is refused: {exc.cause}", where
            ) from None
        raise SchemaRefused(
            f"not a valid JSON Schema at '{where or '/'}': {_short(exc.message)}", where
        ) from None
    _check_references(schema)


def _check_references(schema: dict[str, Any]) -> None:
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(schema, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                where = join(*path, "$ref")
                raise SchemaRefused("schemas may only use local references ('#/...')", where)
            if path and "$schema" in node:
                # A nested dialect would switch validation to a validator without these safeguards.
                where = join(*path, "$schema")
                raise SchemaRefused(f"'$schema' may appear only at the top of a schema (at '{where}')", where)
            stack.extend((child, (*path, key)) for key, child in node.items())
        elif isinstance(node, list):
            stack.extend((child, (*path, index)) for index, child in enumerate(node))
    dialect = schema.get("$schema")
    if dialect is not None and dialect.rstrip("#") != DIALECT:
        raise SchemaRefused(
            f"schemas are JSON Schema draft 2020-12; '$schema' must be {DIALECT!r}", "/$schema"
        )


SchemaDocument = Annotated[dict[str, Any], AfterValidator(check_schema_document)]


# ----------------------------------------------------------------------------------------------- values


@dataclass(frozen=True)
class Violation:
    """One way a value fails its schema: where (path inside the value), why, and the offending part."""

    path: tuple[str | int, ...]
    message: str
    instance: Any
    keyword: str = ""
    """The schema keyword that refused the value (`type`, `minLength`, ...)."""
    expected: Any = None
    """That keyword's value in the schema (for `type`: the type or list of types allowed)."""

    @property
    def pointer(self) -> str:
        return join(*self.path)


class CompiledSchema:
    """A schema ready to validate many values; build it with `compiled_schema` (cached)."""

    def __init__(self, schema: dict[str, Any]) -> None:
        try:
            check_schema_document(schema)
        except ValueError as exc:
            self.refusal: str | None = str(exc)
        else:
            self.refusal = None
        # The dialect is fixed above; a `$schema` at the root would make `$ref: "#"` switch validators.
        root = {key: value for key, value in schema.items() if key != "$schema"}
        self._validator = _Validator(root, format_checker=_VALUE_FORMATS)

    def violations(
        self, value: Any, *, limit: int = MAX_PROBLEMS, budget: int = DEFAULT_BUDGET
    ) -> list[Violation]:
        """Up to `limit` violations, empty when the value conforms.

        Raises `ValidationTooCostly` when deciding would take more than `budget` keyword evaluations,
        and `ValueError` when the schema itself is refused (see `refusal`).
        """
        if self.refusal is not None:
            raise ValueError(self.refusal)
        found: list[Violation] = []
        token = _METER.set(_Meter(budget))
        try:
            for error in self._validator.iter_errors(value):
                found.append(
                    Violation(
                        tuple(error.absolute_path),
                        _message(error),
                        error.instance,
                        str(error.validator),
                        error.validator_value,
                    )
                )
                if len(found) >= limit:
                    break
        except RecursionError:
            raise ValidationTooCostly("the schema refers to itself without end") from None
        finally:
            _METER.reset(token)
        return found


def _message(error: ValidationError) -> str:
    """The library's message, with a long instance shown by its start so the reason stays visible."""
    message = error.message
    if len(message) > MAX_MESSAGE_LENGTH:
        shown = repr(error.instance)
        if shown in message:
            message = message.replace(shown, shown[:60] + "…")
    return _short(message)


def _short(value: Any) -> str:
    text: str = value if isinstance(value, str) else repr(value)
    return text if len(text) <= MAX_MESSAGE_LENGTH else text[: MAX_MESSAGE_LENGTH - 1] + "…"


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _compiled_document(document: str) -> CompiledSchema:
    return CompiledSchema(json.loads(document))


def compiled_schema(schema: dict[str, Any]) -> CompiledSchema:
    """The compiled schema for this content, checked and built once, then shared (an LRU)."""
    return _compiled_document(json.dumps(schema, sort_keys=True, default=str))


def schema_problems(
    schema: dict[str, Any],
    value: Any,
    *,
    budget: int = DEFAULT_BUDGET,
    compiled: CompiledSchema | None = None,
) -> list[str]:
    """Up to 20 `"<pointer>: <message>"` lines; empty when the value conforms.

    A schema that is itself invalid, or a check that runs out of budget, is one problem line rather
    than an exception: callers report it like any mismatch. `compiled`: the schema compiled already
    (what its owner keeps), which saves looking it up by content.
    """
    try:
        found = (compiled or compiled_schema(schema)).violations(value, budget=budget)
    except ValueError as exc:  # ValidationTooCostly included
        return [f"(schema): {exc}"]
    return [f"{violation.pointer or '(root)'}: {violation.message}" for violation in found]
