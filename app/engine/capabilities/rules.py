"""The pipeline's structural rules: resolve the capability, check arguments and output, execute."""

from __future__ import annotations

from typing import Any

from app.definitions.json_schema import schema_problems
from app.definitions.signals import StepError
from app.engine.capabilities.call import CapabilityCall, Proceed, Rule
from app.engine.secret_refs import reference_aware_problems
from app.registry import CapabilityResolver


def resolve_rule(resolver: CapabilityResolver) -> Rule:
    """Find the capability the call's space reaches under its id; unknown ids fail, not retried."""

    async def resolve(call: CapabilityCall, proceed: Proceed) -> Any:
        if call.capability is None:
            call.capability = await resolver.resolve(call.ctx.space_id, call.capability_id)
        if call.capability is None:
            raise StepError("unknown_capability", f"no capability {call.capability_id!r}", retryable=False)
        return await proceed()

    return resolve


async def validate_arguments(call: CapabilityCall, proceed: Proceed) -> Any:
    """Arguments must match the input schema; a secret reference stands for a string."""
    capability = call.resolved()
    problems = reference_aware_problems(capability.input_schema, call.args, compiled=capability.input_check)
    if problems:
        raise StepError(
            "invalid_arguments", f"{call.capability_id}: invalid arguments", retryable=False, details=problems
        )
    return await proceed()


async def validate_output(call: CapabilityCall, proceed: Proceed) -> Any:
    """The result must match the output schema (checked after secrets were scrubbed from it)."""
    result = await proceed()
    capability = call.resolved()
    problems = schema_problems(capability.output_schema, result, compiled=capability.output_check)
    if problems:
        raise StepError(
            "invalid_capability_output", f"{call.capability_id} returned an invalid result", details=problems
        )
    return result


async def execute(call: CapabilityCall, proceed: Proceed) -> Any:
    """The innermost rule: run the handler.

    No timer of its own: the executor bounds the whole step attempt, and ports that take an I/O
    timeout get the attempt's time from the context. One call, one timeout.
    """
    return await call.resolved().handler(call.ctx, call.args)
