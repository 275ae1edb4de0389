"""The built-in pure actions."""

from __future__ import annotations

from typing import Any

from app.registry.models import ActionDefinition


async def _transform_data(ctx: Any, config: dict[str, Any]) -> Any:
    # The executor has already rendered the templates in the config: the result is the output.
    return config["output"]


TRANSFORM_DATA = ActionDefinition(
    type="transform_data",
    name="Transform data",
    description=(
        "Builds a value from inputs and earlier outputs with templates and returns it, with no side "
        "effect: `output` may be any JSON value; a string that is exactly one {{ expression }} keeps "
        "the expression's type (list, object, number)."
    ),
    config_schema={
        "type": "object",
        "required": ["output"],
        "properties": {"output": {"description": "The value to return, templates rendered."}},
        "additionalProperties": False,
    },
    output_contract={"description": "Any JSON value: the rendered `output`."},
    handler=_transform_data,
    duration_class="fast",
)

BUILTIN_ACTIONS: tuple[ActionDefinition, ...] = (TRANSFORM_DATA,)
