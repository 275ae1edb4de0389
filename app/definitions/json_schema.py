"""A JSON Schema document embedded in a definition, checked against draft 2020-12."""

from __future__ import annotations

from typing import Annotated, Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from pydantic import AfterValidator

MAX_SCHEMA_DEPTH = 32


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


def check_schema_document(schema: dict[str, Any]) -> dict[str, Any]:
    """Refuse a schema that is not valid draft 2020-12, or that references outside itself."""
    if _depth(schema) > MAX_SCHEMA_DEPTH:
        raise ValueError(f"schema nests deeper than {MAX_SCHEMA_DEPTH} levels")
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(part) for part in exc.absolute_path)
        raise ValueError(f"not a valid JSON Schema at '/{where}': {exc.message}") from None
    if _has_remote_ref(schema):
        raise ValueError("schemas may only use local references ('#/...')")
    return schema


def _has_remote_ref(value: Any) -> bool:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


SchemaDocument = Annotated[dict[str, Any], AfterValidator(check_schema_document)]
