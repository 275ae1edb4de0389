"""`invoke_capability`: the one path every side effect takes, as an ordered pipeline of named rules.

A rule is `async (call, proceed) -> result`: it may inspect or refuse the call before `proceed()`,
and look at the result after. Permissions, grants, rate limits and the cost ledger are rules added to
the pipeline by name, never `if`s in the executor.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.definitions.json_schema import schema_problems
from app.engine.steps import StepError
from app.registry import Capability, Registry

if TYPE_CHECKING:
    from app.engine.context import ActionContext

DEFAULT_CAPABILITY_TIMEOUT_SECONDS = 60.0


@dataclass
class CapabilityCall:
    """One invocation travelling through the pipeline."""

    ctx: ActionContext
    capability_id: str
    args: dict[str, Any]
    capability: Capability | None = None
    timeout_seconds: float = DEFAULT_CAPABILITY_TIMEOUT_SECONDS
    notes: dict[str, Any] = field(default_factory=dict)


Proceed = Callable[[], Awaitable[Any]]
Rule = Callable[[CapabilityCall, Proceed], Awaitable[Any]]


@dataclass(frozen=True)
class NamedRule:
    name: str
    rule: Rule


def resolve_rule(registry: Registry[Capability]) -> Rule:
    async def resolve(call: CapabilityCall, proceed: Proceed) -> Any:
        call.capability = registry.get(call.capability_id)
        if call.capability is None:
            raise StepError("unknown_capability", f"no capability {call.capability_id!r}", retryable=False)
        return await proceed()

    return resolve


async def validate_arguments(call: CapabilityCall, proceed: Proceed) -> Any:
    assert call.capability is not None
    problems = schema_problems(call.capability.input_schema, call.args)
    if problems:
        raise StepError(
            "invalid_arguments", f"{call.capability_id}: invalid arguments", retryable=False, details=problems
        )
    return await proceed()


async def validate_output(call: CapabilityCall, proceed: Proceed) -> Any:
    result = await proceed()
    assert call.capability is not None
    problems = schema_problems(call.capability.output_schema, result)
    if problems:
        raise StepError(
            "invalid_capability_output", f"{call.capability_id} returned an invalid result", details=problems
        )
    return result


async def execute(call: CapabilityCall, proceed: Proceed) -> Any:
    """The innermost rule: run the handler under its timeout."""
    assert call.capability is not None
    try:
        return await asyncio.wait_for(call.capability.handler(call.ctx, call.args), call.timeout_seconds)
    except TimeoutError:
        raise StepError(
            "capability_timeout", f"{call.capability_id} did not finish within {call.timeout_seconds:g} s"
        ) from None


def default_rules(registry: Registry[Capability]) -> list[NamedRule]:
    """resolve → validate arguments → validate output → execute (with timeout)."""
    return [
        NamedRule("resolve", resolve_rule(registry)),
        NamedRule("validate_arguments", validate_arguments),
        NamedRule("validate_output", validate_output),
        NamedRule("execute", execute),
    ]


class CapabilityPipeline:
    """Rules applied in order around every capability call."""

    def __init__(self, rules: Sequence[NamedRule], registry: Registry[Capability]) -> None:
        self.rules = list(rules)
        self.registry = registry

    def with_rule(self, rule: NamedRule, *, before: str) -> CapabilityPipeline:
        """A copy with `rule` inserted before the rule named `before`."""
        names = [r.name for r in self.rules]
        position = names.index(before)
        return CapabilityPipeline([*self.rules[:position], rule, *self.rules[position:]], self.registry)

    async def invoke(self, call: CapabilityCall) -> Any:
        async def step(index: int) -> Any:
            if index == len(self.rules):
                return None
            return await self.rules[index].rule(call, lambda: step(index + 1))

        return await step(0)
