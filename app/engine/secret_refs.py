"""Secret references in step configs: `{"$secret": "name"}` where a string is expected.

A definition names a secret, never holds it. The reference survives rendering untouched (its name
holds no template syntax), and the pipeline's `secrets` rule swaps it for the value right before the
capability executes. Only references the definition wrote literally count: after rendering,
`bind_references` turns each literal one into a `SecretRef`, and the rule resolves `SecretRef`
instances only. A value that merely looks like a reference (from a trigger payload or an earlier
step's output, through a template) stays plain data, so outside input can never name a secret.

For validation a reference stands for a string it cannot check yet: a `type` error at a reference,
where the schema admits a string, is not a problem (`reference_aware_problems`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from app.definitions.json_schema import CompiledSchema, Violation, compiled_schema

REFERENCE_KEY = "$secret"
SECRET_NAME = re.compile(r"[a-z0-9_]{1,64}")
MAX_PROBLEMS = 20
# References skipped among the violations do not count against the problems shown.
MAX_VIOLATIONS = 200
SCRUBBED = "[REDACTED]"


class SecretRef(dict[str, str]):
    """A literal secret reference of a rendered config; stored and shown as `{"$secret": name}`."""

    def __init__(self, name: str) -> None:
        super().__init__({REFERENCE_KEY: name})

    @property
    def name(self) -> str:
        return self[REFERENCE_KEY]


def looks_like_reference(value: Any) -> bool:
    """A JSON object with a `$secret` key: meant as a reference, well formed or not."""
    return isinstance(value, Mapping) and REFERENCE_KEY in value


def reference_problem(value: Mapping[str, Any]) -> str | None:
    """Why a `$secret` object is not a valid reference, or None when it is."""
    if set(value) != {REFERENCE_KEY}:
        return 'a secret reference has exactly one key, "$secret"'
    name = value[REFERENCE_KEY]
    if not isinstance(name, str) or not SECRET_NAME.fullmatch(name):
        return "a secret name is 1-64 lowercase letters, digits or underscores"
    return None


def is_literal_reference(value: Any) -> bool:
    """A well-formed reference as written in a definition (before rendering)."""
    return looks_like_reference(value) and reference_problem(value) is None


def is_bound_reference(value: Any) -> bool:
    """A reference the executor bound after rendering: the only kind the pipeline resolves."""
    return isinstance(value, SecretRef)


def bind_references(written: Any, rendered: Any) -> Any:
    """`rendered` with every reference that `written` (the unrendered config) holds literally bound.

    Rendering keeps the structure of the config except at template strings, so the two are walked
    side by side; whatever a template produced is left as it is.
    """
    if is_literal_reference(written) and rendered == written:
        return SecretRef(written[REFERENCE_KEY])
    if isinstance(written, Mapping) and isinstance(rendered, dict):
        return {
            key: bind_references(written[key], value) if key in written else value
            for key, value in rendered.items()
        }
    if isinstance(written, list) and isinstance(rendered, list) and len(written) == len(rendered):
        return [bind_references(w, r) for w, r in zip(written, rendered, strict=True)]
    return rendered


def references(value: Any) -> list[SecretRef]:
    """Every bound reference in a value, in document order."""
    return list(_walk(value))


def has_references(value: Any) -> bool:
    """Whether a value holds a bound reference; stops at the first one."""
    return next(_walk(value), None) is not None


def _walk(value: Any) -> Iterator[SecretRef]:
    if isinstance(value, SecretRef):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _walk(item)


def located(value: Any) -> list[tuple[tuple[str | int, ...], SecretRef]]:
    """Every bound reference in a value with the segments of its JSON pointer, in document order."""
    found: list[tuple[tuple[str | int, ...], SecretRef]] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), value)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, SecretRef):
            found.append((where, node))
        elif isinstance(node, Mapping):
            stack.extend(((*where, key), child) for key, child in reversed(list(node.items())))
        elif isinstance(node, list | tuple):
            stack.extend(((*where, index), child) for index, child in reversed(list(enumerate(node))))
    return found


def substitute(value: Any, values: Mapping[str, str]) -> Any:
    """A copy of `value` with each bound reference replaced by its secret's value."""
    if isinstance(value, SecretRef):
        return values[value.name]
    if isinstance(value, Mapping):
        return {key: substitute(item, values) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [substitute(item, values) for item in value]
    return value


def scrub(value: Any, secrets: list[str]) -> Any:
    """A copy of a JSON-like value in which no string (key or leaf) contains any of `secrets`."""
    secrets = sorted((s for s in secrets if s), key=len, reverse=True)
    if not secrets:
        return value

    def text(item: str) -> str:
        for secret in secrets:
            item = item.replace(secret, SCRUBBED)
        return item

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return text(item)
        if isinstance(item, Mapping):
            return {text(str(key)): walk(child) for key, child in item.items()}
        if isinstance(item, list | tuple):
            return [walk(child) for child in item]
        return item

    return walk(value)


def reference_aware_problems(
    schema: dict[str, Any],
    value: Any,
    *,
    is_reference: Callable[[Any], bool] = is_bound_reference,
    compiled: CompiledSchema | None = None,
) -> list[str]:
    """Like `schema_problems`, but a reference where the schema admits a string is no problem.

    `is_reference` says what counts as one: bound references at run time, literal ones at save time.
    `compiled`: the schema compiled already (what its owner keeps).
    """
    try:
        found = (compiled or compiled_schema(schema)).violations(value, limit=MAX_VIOLATIONS)
    except ValueError as exc:  # a schema refused or too costly: one problem, like `schema_problems`
        return [f"(schema): {exc}"]
    problems = [
        f"{violation.pointer or '(root)'}: {violation.message}"
        for violation in found
        if not stands_for_string(violation, is_reference)
    ]
    return problems[:MAX_PROBLEMS]


def stands_for_string(violation: Violation, is_reference: Callable[[Any], bool]) -> bool:
    """A `type` violation by a reference where the schema admits a string: not a problem."""
    if violation.keyword != "type" or not is_reference(violation.instance):
        return False
    expected = violation.expected
    return expected == "string" or (isinstance(expected, list) and "string" in expected)
