"""What a fire and a promotion honour of the operator's settings, and where a run's wake-up goes."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.definitions.automation import AutomationDefinition
from app.definitions.plan_tree import action_steps
from app.definitions.signals import StepError
from app.engine.caps import OperatorCaps
from app.engine.estimate import Pricer
from app.registry import actions
from app.registry.llm_ports import LlmPort

__all__ = ["EXECUTE_TASK", "RUN_QUEUES", "DispatchLimits", "pricer", "queue_for"]

EXECUTE_TASK = "runs.execute"
_QUEUE_OF_CLASS = {"fast": "runs.fast", "medium": "runs.medium", "long": "runs.long"}
RUN_QUEUES = tuple(_QUEUE_OF_CLASS.values())
"""The queues runs are woken on, one per duration class."""
_CLASS_RANK = {"fast": 0, "medium": 1, "long": 2}


@dataclass(frozen=True)
class DispatchLimits:
    """Operator settings the dispatcher honours, and how to price an LLM call before any run exists."""

    max_concurrent_runs: int = 0
    pricer: Pricer | None = None
    caps: OperatorCaps = field(default_factory=OperatorCaps)


def pricer(llm: LlmPort) -> Pricer:
    """Price one LLM call's worst case with the deployment's model prices (None when unknown)."""

    def price(model: str, prompt_tokens: int, max_tokens: int) -> float | None:
        try:
            return llm.worst_case_cost(model, prompt_tokens, max_tokens)
        except StepError:
            return None

    return price


def queue_for(definition: AutomationDefinition) -> str:
    """The queue of the slowest step's duration class (unknown actions count as medium)."""
    slowest = "fast"
    for step in action_steps(definition):
        action = actions.get(step.action)
        duration = action.duration_class if action is not None else "medium"
        if _CLASS_RANK[duration] > _CLASS_RANK[slowest]:
            slowest = duration
    return _QUEUE_OF_CLASS[slowest]
