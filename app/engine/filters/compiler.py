"""Turn a filter document into nested closures, collecting every problem on the way.

One walk serves both callers: `compile_filter` raises the first problem, `check_filter` returns them
all. So the save-time check and the compiler cannot disagree about what is valid.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from typing import Any

from app.definitions.pointers import child as child_pointer
from app.engine.filters.limits import (
    MAX_DEPTH,
    MAX_NODES,
    MAX_PATH_LENGTH,
    MAX_PATH_SEGMENTS,
    MAX_PROBLEMS,
    MAX_REGEXES,
    FilterError,
)
from app.engine.filters.operators import OPERATORS, ValueTest

Predicate = Callable[[Any], bool]

_MISSING: Any = object()
"""What a path resolves to when the payload has nothing there (distinct from a JSON null)."""


def _always(payload: Any) -> bool:
    return True


def _never(payload: Any) -> bool:
    return False


def _all(predicates: Sequence[Predicate]) -> Predicate:
    if not predicates:
        return _always
    if len(predicates) == 1:
        return predicates[0]
    if len(predicates) == 2:
        first, second = predicates
        return lambda payload: first(payload) and second(payload)

    def every(payload: Any) -> bool:
        # An explicit loop: all() over a generator costs a frame per call on the hot path.
        for predicate in predicates:  # noqa: SIM110
            if not predicate(payload):
                return False
        return True

    return every


def _any(predicates: Sequence[Predicate]) -> Predicate:
    if len(predicates) == 1:
        return predicates[0]
    if len(predicates) == 2:
        first, second = predicates
        return lambda payload: first(payload) or second(payload)

    def some(payload: Any) -> bool:
        for predicate in predicates:  # noqa: SIM110 (as in `_all`)
            if predicate(payload):
                return True
        return False

    return some


def _negate(predicate: Predicate) -> Predicate:
    return lambda payload: not predicate(payload)


_COMBINATORS: dict[str, Callable[[Sequence[Predicate]], Predicate]] = {"$and": _all, "$or": _any}


Step = tuple[str, int | None]
"""One path segment: the key it names in an object, and the index it names in an array (or None)."""


def _list_index(segment: str) -> int | None:
    # Only a canonical non-negative integer ("0", "12"; not "01", "-1", "+1") indexes an array.
    if segment.isascii() and segment.isdecimal() and str(int(segment)) == segment:
        return int(segment)
    return None


def _getter(steps: tuple[Step, ...]) -> Callable[[Any], Any]:
    """A function returning the value at the path in a payload, or `_MISSING`."""
    # Paths of one or two plain keys are the common case: unrolled, they cost a third less.
    if len(steps) == 1 and steps[0][1] is None:
        key = steps[0][0]
        return lambda payload: payload.get(key, _MISSING) if isinstance(payload, dict) else _MISSING
    if len(steps) == 2 and steps[0][1] is None and steps[1][1] is None:
        (outer, _), (inner, _) = steps

        def get_two(payload: Any) -> Any:
            if isinstance(payload, dict):
                node = payload.get(outer, _MISSING)
                if isinstance(node, dict):
                    return node.get(inner, _MISSING)
            return _MISSING

        return get_two

    def walk(payload: Any) -> Any:
        node = payload
        for key, index in steps:
            if isinstance(node, dict):
                node = node.get(key, _MISSING)
            elif index is not None and isinstance(node, list) and index < len(node):
                node = node[index]
            else:
                return _MISSING  # also stops a walk that already went missing
        return node

    return walk


def _condition(get: Callable[[Any], Any], tests: list[ValueTest], exists: bool | None) -> Predicate:
    if exists is False:
        if tests:  # absent, yet tested for a value: nothing can match
            return _never
        return lambda payload: get(payload) is _MISSING
    if not tests:
        return lambda payload: get(payload) is not _MISSING
    test = _all(tests)  # a value test has a predicate's shape: AND them the same way

    def match(payload: Any) -> bool:
        value = get(payload)
        return value is not _MISSING and test(value)

    return match


class _Compiler:
    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []
        self.nodes = 0
        self.regexes = 0

    def problem(self, at: str, message: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append((at, message))

    def count_node(self, at: str) -> bool:
        """Spend one node of the budget; False (reported once) when the budget is gone."""
        self.nodes += 1
        if self.nodes == MAX_NODES + 1:
            self.problem(at, f"the filter has more than {MAX_NODES} nodes (documents and operators)")
        return self.nodes <= MAX_NODES

    def document(self, document: Any, at: str, depth: int) -> Predicate | None:
        if not isinstance(document, dict):
            self.problem(at, "a filter must be a JSON object")
            return None
        if depth > MAX_DEPTH:
            self.problem(at, f"filters nest deeper than {MAX_DEPTH} levels")
            return None
        if not self.count_node(at):
            return None
        parts: list[Predicate | None] = []
        for key, value in document.items():
            if not isinstance(key, str):
                self.problem(at, f"keys must be strings, not {key!r}")
                parts.append(None)
            elif key.startswith("$"):
                parts.append(self.composition(key, value, child_pointer(at, key), depth))
            else:
                parts.append(self.condition(key, value, child_pointer(at, key)))
        predicates = [part for part in parts if part is not None]
        return _all(predicates) if len(predicates) == len(parts) else None

    def composition(self, key: str, value: Any, at: str, depth: int) -> Predicate | None:
        if key == "$not":
            child = self.document(value, at, depth + 1)
            return None if child is None else _negate(child)
        combine = _COMBINATORS.get(key)
        if combine is None:
            self.problem(at, f"unknown composition operator {key!r}; expected $and, $or or $not")
            return None
        if not isinstance(value, list) or not value:
            self.problem(at, f"{key} takes a non-empty array of filters")
            return None
        children = [
            self.document(item, child_pointer(at, index), depth + 1) for index, item in enumerate(value)
        ]
        predicates = [child for child in children if child is not None]
        return combine(predicates) if len(predicates) == len(children) else None

    def path(self, path: str, at: str) -> tuple[Step, ...] | None:
        segments = path.split(".")
        if len(path) > MAX_PATH_LENGTH:
            self.problem(at, f"a path has at most {MAX_PATH_LENGTH} characters")
        elif not all(segments):
            self.problem(at, "a path is dot-separated keys, none of them empty")
        elif len(segments) > MAX_PATH_SEGMENTS:
            self.problem(at, f"a path has at most {MAX_PATH_SEGMENTS} segments")
        else:
            return tuple((segment, _list_index(segment)) for segment in segments)
        return None

    def condition(self, path: str, value: Any, at: str) -> Predicate | None:
        steps = self.path(path, at)
        if isinstance(value, dict):
            operators = value
        elif isinstance(value, list):
            self.problem(
                at, "a condition is an object of operators or a scalar; for arrays use contains or in"
            )
            return None
        else:  # scalar shorthand for equals; its problems point at the scalar itself
            return self.shorthand(steps, value, at)
        if not operators:
            self.problem(at, "a condition needs at least one operator")
            return None
        tests: list[ValueTest] = []
        exists: bool | None = None
        valid = True
        for name, operand in operators.items():
            operand_at = child_pointer(at, name)
            if not self.count_node(operand_at):
                return None
            if name == "exists":  # about the path itself, not the value found there
                if self.operand_ok(name, operand, operand_at):
                    exists = operand
                else:
                    valid = False
            elif (test := self.operator(name, operand, operand_at)) is not None:
                tests.append(test)
            else:
                valid = False
        if not valid or steps is None:
            return None
        return _condition(_getter(steps), tests, exists)

    def shorthand(self, steps: tuple[Step, ...] | None, value: Any, at: str) -> Predicate | None:
        if not self.count_node(at):
            return None
        test = self.operator("equals", value, at)  # its problems point at the scalar itself
        if test is None or steps is None:
            return None
        return _condition(_getter(steps), [test], None)

    def operand_ok(self, name: str, operand: Any, at: str) -> bool:
        problems = OPERATORS[name].operand.check(operand, at)
        for problem_at, message in problems:
            self.problem(problem_at, f"{name}: {message}")
        return not problems

    def operator(self, name: Any, operand: Any, at: str) -> ValueTest | None:
        spec = OPERATORS.get(name)
        if spec is None:
            self.problem(at, _unknown_operator(name))
            return None
        if name == "regex":
            self.regexes += 1
            if self.regexes == MAX_REGEXES + 1:
                self.problem(at, f"a filter has at most {MAX_REGEXES} regex operators")
            if self.regexes > MAX_REGEXES:
                return None
        if not self.operand_ok(name, operand, at) or spec.build is None:
            return None
        return spec.build(operand)


def _unknown_operator(name: Any) -> str:
    message = f"unknown operator {name!r}"
    close = difflib.get_close_matches(name, OPERATORS, n=1) if isinstance(name, str) else []
    if close:
        return f"{message}; did you mean {close[0]!r}?"
    return f"{message}; expected one of: {', '.join(OPERATORS)}"


def check_filter(expr: Any) -> list[tuple[str, str]]:
    """Every problem of a filter document as (JSON pointer, message), without raising.

    An empty list means `compile_filter(expr)` succeeds. At most `MAX_PROBLEMS` are returned.
    """
    compiler = _Compiler()
    compiler.document(expr, "", 1)
    return compiler.problems


def compile_filter(expr: dict[str, Any]) -> Callable[[dict[str, Any]], bool]:
    """Validate a filter document once and compile it into a predicate over event payloads.

    The predicate answers True or False for any JSON payload and never raises. A document that does
    not follow the grammar raises `FilterError` pointing at its first problem.
    """
    compiler = _Compiler()
    predicate = compiler.document(expr, "", 1)
    if compiler.problems:
        first_at, first_message = compiler.problems[0]
        raise FilterError(first_at, first_message, tuple(compiler.problems))
    assert predicate is not None  # every refusal records a problem
    return predicate
