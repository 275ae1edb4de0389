"""The definition's inputs: runtime defaults that exist, and `$space_default`s the space can fill."""

from __future__ import annotations

from typing import Any

from app.definitions.json_schema import check_schema_document
from app.definitions.pointers import join
from app.engine.inputs import RUNTIME_DEFAULTS, SPACE_DEFAULT_MISSING, is_runtime_token, space_default_names
from app.engine.validation.problems import Problem


def input_problems(inputs: Any, space_defaults: frozenset[str] | None) -> list[Problem]:
    """Problems of the inputs' schema the shape pass cannot see: unknown runtime defaults and, given the
    space's input defaults, each `$space_default` the space has no value for."""
    if not isinstance(inputs, dict) or not isinstance(inputs.get("schema"), dict):
        return []
    schema = inputs["schema"]
    try:
        check_schema_document(schema)
    except ValueError:
        return []  # already reported by the shape pass
    problems = []
    properties = schema.get("properties")
    for name, spec in properties.items() if isinstance(properties, dict) else ():
        default = spec.get("default") if isinstance(spec, dict) else None
        if is_runtime_token(default) and default not in RUNTIME_DEFAULTS:
            problems.append(
                Problem(
                    join("inputs", "schema", "properties", name, "default"),
                    "unknown_runtime_default",
                    f"{default!r} is not a runtime default; use one of {', '.join(sorted(RUNTIME_DEFAULTS))}",
                )
            )
    if space_defaults is not None:
        problems += _space_defaults(schema, space_defaults)
    return problems


def _space_defaults(schema: dict[str, Any], space_defaults: frozenset[str]) -> list[Problem]:
    """A warning for each `$space_default` the space has no value for: a fire that leaves the input out
    gets none (and is refused when the input is required) until an admin sets one."""
    required = schema.get("required")
    problems = []
    for name in space_default_names(schema):
        if name in space_defaults:
            continue
        consequence = (
            "fires that leave it out are refused"
            if isinstance(required, list) and name in required
            else "runs that leave it out go without"
        )
        problems.append(
            Problem(
                join("inputs", "schema", "properties", name, "default"),
                SPACE_DEFAULT_MISSING,
                f"this space has no input default {name!r}: {consequence} until an admin sets one",
                "warning",
            )
        )
    return problems
