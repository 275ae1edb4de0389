"""Spending caps in effect for an automation: its own, or the operator's defaults, within the maximums.

Every automation is bounded: a definition that leaves `execution.cost_cap_daily_usd` or
`execution.max_llm_tokens` unset gets the operator's default (AUTOMATIONS_DEFAULT_DAILY_COST_CAP_USD,
AUTOMATIONS_DEFAULT_RUN_TOKEN_CAP). A definition may set its own, never above the operator's maximum
(AUTOMATIONS_MAX_DAILY_COST_CAP_USD, AUTOMATIONS_MAX_RUN_TOKEN_CAP): the validator refuses more at save.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from app.definitions.automation import ExecutionPolicy

CapSource = Literal["automation", "operator_default"]


@dataclass(frozen=True)
class OperatorCaps:
    """The operator's defaults and maximums (settings); the defaults here are the settings' defaults."""

    default_daily_cost_usd: float = 1.0
    max_daily_cost_usd: float = 100.0
    default_run_tokens: int = 200_000
    max_run_tokens: int = 2_000_000


@dataclass(frozen=True)
class EffectiveCap:
    value: float
    source: CapSource
    maximum: float

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source, "maximum": self.maximum}


@dataclass(frozen=True)
class EffectiveCaps:
    """The caps a run of the automation is held to, and where each comes from."""

    daily_cost_usd: EffectiveCap
    run_tokens: EffectiveCap

    def as_dict(self) -> dict[str, Any]:
        return {"daily_cost_usd": self.daily_cost_usd.as_dict(), "run_tokens": self.run_tokens.as_dict()}


def effective_caps(execution: ExecutionPolicy, operator: OperatorCaps) -> EffectiveCaps:
    """The automation's own caps where it sets them, else the operator's defaults.

    A stored definition that predates a lowered maximum keeps its own value: the maximum is checked
    at save, and a run is never refused for what an earlier save accepted.
    """
    daily = execution.cost_cap_daily_usd
    tokens = execution.max_llm_tokens
    return EffectiveCaps(
        daily_cost_usd=EffectiveCap(
            daily if daily is not None else operator.default_daily_cost_usd,
            "automation" if daily is not None else "operator_default",
            operator.max_daily_cost_usd,
        ),
        run_tokens=EffectiveCap(
            tokens if tokens is not None else operator.default_run_tokens,
            "automation" if tokens is not None else "operator_default",
            operator.max_run_tokens,
        ),
    )
