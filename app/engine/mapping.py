"""Webhook input mapping: JSONPath (RFC 9535) expressions that pick an automation's inputs out of a body.

A webhook trigger's config holds `{"input_mapping": {"<input name>": "<JSONPath>", ...}}`. Each expression
is compiled once (`compile_mapping`, cached by content) and evaluated against every posted JSON body
(`CompiledMapping.apply`). The shape of an input depends on its expression, never on the body, so an
inputs schema can rely on it:

- A *singular* expression (RFC 9535 section 2.3.5.1: only name and index selectors, e.g. `$.a.b`,
  `$.items[0]`, `$['odd key']`) yields the one value it finds, or nothing.
- Any other expression (wildcard, slice, filter, descendant, several selectors in one bracket) yields a
  list of every value it finds, in document order, even when it finds only one.
- When an expression finds nothing, the input is left out, so the inputs schema's `default` or
  `required` decides what happens next.

Values are the body's own objects, not copies. Evaluation is bounded whatever the body holds: at most
`MAX_MATCHES` values per input, descendant segments stop `MAX_DESCENT_DEPTH` levels down, an expression
holds at most one descendant segment, and `match()` / `search()` run on RE2 (linear time), never on
Python's `re`. Every refusal is a `MappingError` whose problems point at `/input_mapping/<name>`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import Any

import re2
from jsonpath import JSONPath, JSONPathEnvironment, JSONPathError
from jsonpath.exceptions import JSONPathRecursionError
from jsonpath.function_extensions import ExpressionType, FilterFunction
from jsonpath.token import TOKEN_DDOT

from app.definitions.pointers import child, join
from app.definitions.regex import match_only_options
from app.errors import ErrorDetail, ValidationFailed

MAX_INPUTS = 100
MAX_EXPRESSION_LENGTH = 500
MAX_MATCHES = 1000
"""Values one multi-value expression may yield; more is an error, never a silent truncation."""
MAX_DESCENT_DEPTH = 100
"""Levels a descendant segment (`..`) walks below where it starts before evaluation is refused."""
MAX_DESCENDANT_SEGMENTS = 1
"""Two descendant segments (e.g. `$..a..b`, `$..[?@..x]`) make the cost grow with body size x depth."""
MAX_PATTERN_LENGTH = 1000
"""Longer `match()` / `search()` patterns (they may come from the body) match nothing."""
PATTERN_MAX_MEM = 1 << 18
"""Memory budget of one compiled RE2 pattern; with `_PATTERN_CACHE_SIZE` it bounds what the cache holds."""
CACHE_SIZE = 256
_PATTERN_CACHE_SIZE = 64
MAPPING_POINTER = join("input_mapping")

Problems = list[tuple[str, str]]


class MappingError(ValidationFailed):
    """An input mapping that cannot be compiled, or a body it cannot be applied to (422).

    `problems` lists (JSON pointer relative to the trigger config, message), e.g.
    `("/input_mapping/repo", "...")`; they are also the error's `details`.
    """

    code = "input_mapping_invalid"
    message = "The webhook input mapping could not be applied."

    def __init__(self, problems: Problems, *, message: str | None = None) -> None:
        self.problems = list(problems)
        details = [ErrorDetail(path, text) for path, text in self.problems]
        super().__init__(message, details=details)


_PATTERN_OPTIONS = match_only_options(PATTERN_MAX_MEM)


@functools.lru_cache(maxsize=_PATTERN_CACHE_SIZE)
def _re2_pattern(pattern: str) -> Any:
    """The compiled pattern, or None when RE2 refuses it (RFC 9535: an invalid pattern matches nothing)."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return None
    try:
        return re2.compile(pattern, _PATTERN_OPTIONS)
    except (re2.error, UnicodeEncodeError):
        return None


class _Re2Function(FilterFunction):
    """RFC 9535 `match` (whole string) or `search` (any substring) on RE2 instead of Python's `re`.

    Patterns can come from the posted body (`match(@.a, @.b)`), so a backtracking engine would hand the
    caller a denial of service. RE2's `.` also matches `\\r`, where I-Regexp's does not.
    """

    arg_types = [ExpressionType.VALUE, ExpressionType.VALUE]
    return_type = ExpressionType.LOGICAL

    def __init__(self, *, whole: bool) -> None:
        self.whole = whole

    def __call__(self, value: object, pattern: object) -> bool:
        if not isinstance(value, str) or not isinstance(pattern, str):
            return False
        compiled = _re2_pattern(pattern)
        if compiled is None:
            return False
        try:
            found = compiled.fullmatch(value) if self.whole else compiled.search(value)
        except UnicodeEncodeError:  # a lone surrogate in the body: not text RE2 can read
            return False
        return found is not None


class _Environment(JSONPathEnvironment):
    """Strict RFC 9535 (no library extensions such as `|`, `~` or `^`), RE2 regexes, bounded descent."""

    max_recursion_depth = MAX_DESCENT_DEPTH

    def __init__(self) -> None:
        super().__init__(strict=True)

    def setup_function_extensions(self) -> None:
        """The standard functions, with `match` and `search` replaced by their RE2 versions."""
        super().setup_function_extensions()
        self.function_extensions["match"] = _Re2Function(whole=True)
        self.function_extensions["search"] = _Re2Function(whole=False)

    def getitem(self, obj: Any, key: Any) -> Any:
        """Item access; a string has no items (the library's slice selector would yield its characters)."""
        if isinstance(obj, str):
            return ()
        return super().getitem(obj, key)


_ENV = _Environment()


class _Refused(Exception):
    """One expression refused (at compile or evaluation); the caller adds the input's pointer."""


@dataclass(frozen=True)
class _Input:
    name: str
    pointer: str
    path: JSONPath
    singular: bool

    def evaluate(self, body: Any) -> tuple[bool, Any]:
        """(found, value) for this input; raises `_Refused` with a message for the caller."""
        values = self._find(body)
        if not values:
            return False, None
        if not self.singular:
            if len(values) > MAX_MATCHES:
                raise _Refused(f"matched more than {MAX_MATCHES} values")
            return True, values
        if len(values) > 1:  # RFC 9535 says this cannot happen; never pick one of several silently
            raise _Refused("a single-value expression matched several values")
        return True, values[0]

    def _find(self, body: Any) -> list[Any]:
        if isinstance(body, str):
            # The library would parse a str document as JSON text; a JSON string body is a plain value.
            return [body] if self.path.empty() else []
        try:
            # islice stops the (lazy) evaluation as soon as the result is known to be too long.
            return list(islice((match.obj for match in self.path.finditer(body)), MAX_MATCHES + 1))
        except JSONPathRecursionError:
            raise _Refused(f"the request body nests deeper than {MAX_DESCENT_DEPTH} levels") from None
        except RecursionError:
            raise _Refused("the request body nests too deeply to evaluate this expression") from None
        except Exception as exc:
            # A third-party evaluator over untrusted data: whatever it raises must become a 422 that
            # names the input, never a 500.
            raise _Refused(
                f"could not be evaluated against the request body ({type(exc).__name__})"
            ) from None


@dataclass(frozen=True)
class CompiledMapping:
    """A compiled input mapping: input name -> compiled JSONPath, ready to apply to many bodies."""

    inputs: tuple[_Input, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The input names this mapping may produce, in mapping order."""
        return tuple(item.name for item in self.inputs)

    def apply(self, body: Any) -> dict[str, Any]:
        """The inputs found in `body` (see the module docstring for the semantics).

        Raises `MappingError` listing every input that could not be evaluated, and nothing else.
        """
        found: dict[str, Any] = {}
        problems: Problems = []
        for item in self.inputs:
            try:
                present, value = item.evaluate(body)
            except _Refused as exc:
                problems.append((item.pointer, str(exc)))
                continue
            if present:
                found[item.name] = value
        if problems:
            raise MappingError(problems, message="The request body does not fit the webhook input mapping.")
        return found


def compile_mapping(mapping: Mapping[str, str]) -> CompiledMapping:
    """Compile every expression of an input mapping once; raise `MappingError` listing every problem.

    Compiled mappings are cached by content (bounded LRU), so calling this per request is cheap.
    """
    compiled, problems = _compile_checked(mapping)
    if compiled is None:
        raise MappingError(problems, message="The webhook input mapping is invalid.")
    return compiled


def check_mapping(mapping: Any) -> Problems:
    """Save-time check: every problem as (pointer relative to the trigger config, message)."""
    return _compile_checked(mapping)[1]


def _compile_checked(mapping: Any) -> tuple[CompiledMapping | None, Problems]:
    if not isinstance(mapping, Mapping):
        return None, [(MAPPING_POINTER, "must be an object of input name -> JSONPath expression")]
    if len(mapping) > MAX_INPUTS:
        return None, [(MAPPING_POINTER, f"must map at most {MAX_INPUTS} inputs")]
    items = tuple(mapping.items())
    bad_types = [
        (child(MAPPING_POINTER, str(name)), "must be a string (a JSONPath expression)")
        for name, expression in items
        if not isinstance(name, str) or not isinstance(expression, str)
    ]
    # Only all-string items are used as cache keys: anything else may be unhashable or mutable.
    valid = tuple(item for item in items if isinstance(item[0], str) and isinstance(item[1], str))
    compiled, problems = _compile_items(valid)
    if bad_types:
        return None, bad_types + list(problems)
    return compiled, list(problems)


@functools.lru_cache(maxsize=CACHE_SIZE)
def _compile_items(
    items: tuple[tuple[str, str], ...],
) -> tuple[CompiledMapping | None, tuple[tuple[str, str], ...]]:
    inputs: list[_Input] = []
    problems: list[tuple[str, str]] = []
    for name, expression in items:
        pointer = child(MAPPING_POINTER, name)
        try:
            path = _compile_expression(expression)
        except _Refused as exc:
            problems.append((pointer, str(exc)))
            continue
        inputs.append(_Input(name, pointer, path, path.singular_query()))
    if problems:
        return None, tuple(problems)
    return CompiledMapping(tuple(inputs)), ()


def _compile_expression(expression: str) -> JSONPath:
    if not expression:
        raise _Refused("must not be empty")
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise _Refused(f"must be at most {MAX_EXPRESSION_LENGTH} characters")
    if not expression.startswith("$"):  # the commonest mistake; the parser would name token kinds
        raise _Refused("must start with `$`, the root of the request body (e.g. `$.repository.name`)")
    try:
        path = _ENV.compile(expression)
        descendants = sum(1 for token in _tokens(expression) if token == TOKEN_DDOT)
    except JSONPathError as exc:
        where = exc.token.index if exc.token is not None and exc.token.index >= 0 else None
        at = f" (at character {where + 1})" if where is not None else ""
        raise _Refused(f"not a valid JSONPath expression (RFC 9535): {exc.message}{at}") from None
    except RecursionError:
        raise _Refused("not a valid JSONPath expression (RFC 9535): it nests too deeply") from None
    if not isinstance(path, JSONPath):  # strict mode has no union/intersection; stay safe if it changes
        raise _Refused("must be a single JSONPath expression")
    if descendants > MAX_DESCENDANT_SEGMENTS:
        raise _Refused(
            f"may use at most {MAX_DESCENDANT_SEGMENTS} descendant segment (`..`), filters included:"
            " nested descents make evaluation cost grow with body size times depth"
        )
    return path


def _tokens(expression: str) -> Iterator[str]:
    """Token kinds of an expression, so `..` inside a string literal is not counted as a segment."""
    return (token.kind for token in _ENV.lexer.tokenize(expression))
