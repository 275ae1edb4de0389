"""`capability_action`: an action that forwards its config to one capability.

Most tight actions are a capability with a step around it: the config is the capability's arguments
(perhaps less a few step-only keys) and the output is its result (perhaps checked first). The factory
builds that action so the forwarding, `uses_capabilities` and the schemas stay consistent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.registry.models import ActionDefinition, ArtifactSpec, Capability, DurationClass
from app.registry.ports import HandlerContext

Prepare = Callable[[dict[str, Any]], dict[str, Any]]
"""The step's config → the capability's arguments."""
Finish = Callable[[dict[str, Any], Any], Any]
"""(the step's config, the capability's result) → the step's output; may raise to fail the step."""


def capability_action(
    capability: Capability,
    *,
    type: str,
    name: str,
    description: str,
    duration_class: DurationClass,
    config_schema: dict[str, Any] | None = None,
    output_contract: dict[str, Any] | None = None,
    prepare: Prepare | None = None,
    finish: Finish | None = None,
    example_output: Any = None,
    produces_artifacts: tuple[ArtifactSpec, ...] = (),
) -> ActionDefinition:
    """An action whose handler calls `capability` through the pipeline with its config.

    The config schema defaults to the capability's input schema and the output contract to its
    output schema; `prepare` and `finish` adapt the two ends when the step has keys of its own.
    """

    async def forward(ctx: HandlerContext, config: dict[str, Any]) -> Any:
        args = prepare(config) if prepare is not None else config
        result = await ctx.invoke_capability(capability.id, args)
        return finish(config, result) if finish is not None else result

    forward.__qualname__ = forward.__name__ = f"forward_to_{capability.id.replace('.', '_')}"
    return ActionDefinition(
        type=type,
        name=name,
        description=description,
        config_schema=config_schema if config_schema is not None else capability.input_schema,
        output_contract=output_contract if output_contract is not None else capability.output_schema,
        handler=forward,
        duration_class=duration_class,
        uses_capabilities=(capability.id,),
        example_output=example_output,
        secret_fields=capability.secret_fields,
        produces_artifacts=produces_artifacts,
    )
