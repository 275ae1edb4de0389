"""The pipeline: named rules applied in order around every capability call."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.engine.capabilities.call import CapabilityCall, NamedRule
from app.engine.capabilities.drift import drift_check_rule
from app.engine.capabilities.governance import (
    approval_grant,
    drift_guard,
    enforce_mode,
    grants_rule,
    invocation_record,
    permission_mode,
    rate_limit,
)
from app.engine.capabilities.metering import (
    llm_budget,
    llm_daily_cap,
    llm_ledger,
    llm_token_cap,
    model_allowed,
)
from app.engine.capabilities.rules import execute, resolve_rule, validate_arguments, validate_output
from app.engine.capabilities.run_mode import RUN_MODE_RULE
from app.engine.capabilities.secrets import SecretResolver, secrets_rule
from app.registry import CapabilityRecheck, CapabilityResolver, NoRecheck


def default_rules(
    resolver: CapabilityResolver, secrets: SecretResolver, recheck: CapabilityRecheck | None = None
) -> list[NamedRule]:
    """resolve → validate arguments → invocation record → grants → permission mode → approval grant →
    drift check → drift guard → enforce mode → rate limit → model allowed → daily cap → budget →
    token cap → validate output → ledger → run mode → secrets → execute.

    Rules that decide whether a call may happen at all (grants, permission mode, rate limit) sit
    between `validate_arguments` and `model_allowed`: after the call is known to be well formed, before
    anything is spent or any secret is read. The invocation record wraps them so refusals are audited too.
    `run_mode` holds back, in a dry or verify run, the calls its mode does not make, after every check a
    real call passes and before any secret is read.
    """
    return [
        NamedRule("resolve", resolve_rule(resolver)),
        NamedRule("validate_arguments", validate_arguments),
        NamedRule("invocation_record", invocation_record),
        NamedRule("grants", grants_rule),
        NamedRule("permission_mode", permission_mode),
        NamedRule("approval_grant", approval_grant),
        NamedRule("drift_check", drift_check_rule(recheck or NoRecheck())),
        NamedRule("drift_guard", drift_guard),
        NamedRule("enforce_mode", enforce_mode),
        NamedRule("rate_limit", rate_limit),
        NamedRule("model_allowed", model_allowed),
        NamedRule("llm_daily_cap", llm_daily_cap),
        NamedRule("llm_budget", llm_budget),
        NamedRule("llm_token_cap", llm_token_cap),
        NamedRule("validate_output", validate_output),
        NamedRule("llm_ledger", llm_ledger),
        RUN_MODE_RULE,
        NamedRule("secrets", secrets_rule(secrets)),
        NamedRule("execute", execute),
    ]


class CapabilityPipeline:
    """Rules applied in order around every capability call; `resolver` answers what a space can call."""

    def __init__(self, rules: Sequence[NamedRule], resolver: CapabilityResolver) -> None:
        names = [rule.name for rule in rules]
        if len(set(names)) != len(names):
            raise ValueError(f"rule names must be unique: {names}")
        self.rules = tuple(rules)
        self.resolver = resolver

    @property
    def names(self) -> list[str]:
        return [rule.name for rule in self.rules]

    def with_rule(self, rule: NamedRule, *, before: str) -> CapabilityPipeline:
        """A copy with `rule` inserted before the rule named `before` (`ValueError` if there is none)."""
        position = self.names.index(before)
        return CapabilityPipeline([*self.rules[:position], rule, *self.rules[position:]], self.resolver)

    async def invoke(self, call: CapabilityCall) -> Any:
        """Run the call through every rule; the innermost one that does not call `proceed` answers."""

        async def step(index: int) -> Any:
            if index == len(self.rules):
                return None
            return await self.rules[index].rule(call, lambda: step(index + 1))

        return await step(0)
