"""JSON Schema checks of configs and outputs at run time, as short located messages."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from app.definitions.pointers import join

MAX_PROBLEMS = 20


def schema_problems(schema: dict[str, Any], value: Any) -> list[str]:
    """Up to 20 `"<pointer>: <message>"` lines; empty when the value conforms."""
    problems = []
    for error in Draft202012Validator(schema).iter_errors(value):
        problems.append(f"{join(*error.absolute_path) or '(root)'}: {error.message}")
        if len(problems) == MAX_PROBLEMS:
            break
    return problems
