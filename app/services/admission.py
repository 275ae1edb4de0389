"""Admission: what becomes of a fire, decided by small named rules in a fixed order.

Two policies, each an ordered tuple of rule objects:

- `FIRE_GUARDS` refuse a fire outright (an error for the caller, no run): an archived automation, or
  a trigger's fire on a paused one. They look only at the automation row, so they cost nothing.
- `ADMISSION_POLICY` decides the status a new run is created in. The first rule with a verdict wins
  (`dropped` or `queued`, with its reason); when none objects, the run is `pending`. Rules ask the
  database only through `AdmissionFacts`, one query each and only when their setting is on, so an
  automation with no caps costs no query here at all.

To add a rule: write a class with a `name` and a `decide` (or `refusal` for a guard), put it in the
tuple where it belongs, and add its unit test beside the others.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from app.definitions.automation import AutomationDefinition
from app.definitions.run_states import RunStatus
from app.errors import AppError, Conflict, ErrorDetail
from app.persistence.models import AutomationStatus

TriggerType = Literal["manual", "schedule", "webhook", "event"]
# (model, max output tokens) -> worst-case USD, or None when the model has no known price.
Pricer = Callable[[str, int], float | None]
LLM_ACTIONS = ("agent_task", "llm_complete")
DEFAULT_LLM_MAX_TOKENS = 1024


def first_run_estimate(definition: AutomationDefinition, pricer: Pricer | None) -> float | None:
    """With no history: each LLM step's output cap at its model's price (templated models: unknown)."""
    if pricer is None:
        return None
    total, priced = 0.0, False
    for step in [*definition.plan, *definition.execution.on_failure]:
        model = step.config.get("model")
        if step.action not in LLM_ACTIONS or not isinstance(model, str) or "{" in model:
            continue
        price = pricer(model, int(step.config.get("max_tokens", DEFAULT_LLM_MAX_TOKENS)))
        if price is not None:
            total, priced = total + price, True
    return total if priced else None


# --- guards: refuse the fire, create nothing -------------------------------------------------------


class FireGuard(Protocol):
    name: str

    def refusal(self, status: AutomationStatus, trigger_type: TriggerType) -> AppError | None:
        """The error that refuses this fire, or None to let it through."""
        ...


class NotArchived:
    """An archived automation never runs, not even by hand: unarchive it first."""

    name = "not_archived"

    def refusal(self, status: AutomationStatus, trigger_type: TriggerType) -> AppError | None:
        if status is AutomationStatus.archived:
            return Conflict("An archived automation cannot run.", code="automation_archived")
        return None


class TriggersNeedActive:
    """Pausing switches the triggers off: their fires are refused and leave no run behind.

    Run now still works on a paused automation, to try it before activating.
    """

    name = "triggers_need_active"

    def refusal(self, status: AutomationStatus, trigger_type: TriggerType) -> AppError | None:
        if status is AutomationStatus.paused and trigger_type != "manual":
            return Conflict(
                "The automation is paused; activate it to accept fires.", code="automation_paused"
            )
        return None


FIRE_GUARDS: tuple[FireGuard, ...] = (NotArchived(), TriggersNeedActive())


def refusal(
    status: AutomationStatus, trigger_type: TriggerType, guards: Sequence[FireGuard] = FIRE_GUARDS
) -> AppError | None:
    """The first guard's refusal of a fire of this kind on an automation in this status, if any."""
    for guard in guards:
        error = guard.refusal(status, trigger_type)
        if error is not None:
            return error
    return None


# --- admission: the status a new run starts in -------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    status: RunStatus
    reason: str | None = None


ADMITTED = Verdict(RunStatus.pending)


class AdmissionFacts(Protocol):
    """What admission rules may ask the database. Each method is one query."""

    async def in_flight(self, automation_id: uuid.UUID) -> int:
        """Runs of this automation its concurrency policy waits for (`run_states.IN_FLIGHT`)."""
        ...

    async def spent_today(self, automation_id: uuid.UUID) -> float:
        """USD this automation's LLM calls cost since midnight UTC."""
        ...

    async def average_cost(self, automation_id: uuid.UUID) -> float | None:
        """Average cost of its recent succeeded runs, None with no history."""
        ...

    async def slots_taken(self) -> int:
        """Runs holding a slot of the global cap (`run_states.HOLDS_SLOT`), counted under its lock."""
        ...


@dataclass(frozen=True)
class Fire:
    """What the rules see of one fire."""

    automation_id: uuid.UUID
    definition: AutomationDefinition
    facts: AdmissionFacts
    max_concurrent_runs: int = 0
    pricer: Pricer | None = None
    # Set when the caller already knows the fire must not run (e.g. an event chain too deep).
    refuse_reason: str | None = None
    # Problems of a trigger's inputs (an API caller's bad inputs are refused before admission).
    input_problems: Sequence[ErrorDetail] = ()
    # Dry and verify runs are outside the concurrency policy (they neither wait nor are dropped).
    mode: str = "live"


class AdmissionRule(Protocol):
    name: str

    async def decide(self, fire: Fire) -> Verdict | None:
        """A verdict (`dropped` or `queued`, with its reason), or None to leave it to the next rule."""
        ...


class RefusedByCaller:
    name = "refused_by_caller"

    async def decide(self, fire: Fire) -> Verdict | None:
        return Verdict(RunStatus.dropped, fire.refuse_reason) if fire.refuse_reason else None


class TriggerInputsValid:
    """A trigger's fire with bad inputs is kept as a dropped run: nobody is there to hear a 422."""

    name = "trigger_inputs_valid"

    async def decide(self, fire: Fire) -> Verdict | None:
        if not fire.input_problems:
            return None
        problems = "; ".join(f"{d.path} {d.message}" for d in fire.input_problems)
        return Verdict(RunStatus.dropped, f"invalid_inputs: {problems}")


class ConcurrencyPolicy:
    """`drop_if_running` drops and `queue` queues while a live run of the automation is in flight.

    A dry or verify run is a try-out: it never waits for a live run nor drops because of one, and
    `in_flight` does not count it, so it never holds a live fire back either.
    """

    name = "concurrency_policy"

    async def decide(self, fire: Fire) -> Verdict | None:
        policy = fire.definition.execution.concurrency
        if (
            fire.mode != "live"
            or policy == "allow_parallel"
            or not await fire.facts.in_flight(fire.automation_id)
        ):
            return None
        if policy == "drop_if_running":
            return Verdict(RunStatus.dropped, "already_running")
        return Verdict(RunStatus.queued, "waiting_for_previous_run")


class DailyCostCap:
    name = "daily_cost_cap"

    async def decide(self, fire: Fire) -> Verdict | None:
        daily = fire.definition.execution.cost_cap_daily_usd
        if daily is None:
            return None
        spent = await fire.facts.spent_today(fire.automation_id)
        if spent < daily:
            return None
        return Verdict(
            RunStatus.dropped, f"daily_cost_cap_reached: ${spent:.4f} spent today (UTC), cap ${daily:.4f}"
        )


class BudgetCap:
    """Drop a fire whose expected cost (recent average, else its LLM steps' caps) is over the run budget."""

    name = "budget_cap"

    async def decide(self, fire: Fire) -> Verdict | None:
        cap = fire.definition.execution.budget_cap_usd
        if cap is None:
            return None
        estimate = await fire.facts.average_cost(fire.automation_id)
        basis = "recent runs average"
        if estimate is None:
            estimate, basis = first_run_estimate(fire.definition, fire.pricer), "its LLM steps could cost"
        if estimate is None or estimate <= cap:
            return None
        return Verdict(
            RunStatus.dropped, f"budget_exceeded: {basis} ${estimate:.4f}, over the cap ${cap:.4f}"
        )


class GlobalConcurrencyCap:
    """Queue when the installation already has its cap of runs holding a slot."""

    name = "global_concurrency_cap"

    async def decide(self, fire: Fire) -> Verdict | None:
        if fire.max_concurrent_runs <= 0 or await fire.facts.slots_taken() < fire.max_concurrent_runs:
            return None
        return Verdict(RunStatus.queued, "global_concurrency_cap")


# Dropping rules come before the global cap: its count runs under an installation-wide lock, so it
# is taken only for a fire that would otherwise start.
ADMISSION_POLICY: tuple[AdmissionRule, ...] = (
    RefusedByCaller(),
    TriggerInputsValid(),
    ConcurrencyPolicy(),
    DailyCostCap(),
    BudgetCap(),
    GlobalConcurrencyCap(),
)


async def admit(fire: Fire, policy: Sequence[AdmissionRule] = ADMISSION_POLICY) -> Verdict:
    """The first verdict of the policy's rules, in order; `pending` when none objects."""
    for rule in policy:
        verdict = await rule.decide(fire)
        if verdict is not None:
            return verdict
    return ADMITTED
