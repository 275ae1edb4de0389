"""Admission: what becomes of a fire, decided by small named rules in a fixed order.

Two policies, each an ordered tuple of rule objects:

- `FIRE_GUARDS` refuse a fire outright (an error for the caller, no run): an archived automation, or
  a trigger's fire on a paused one. They look only at the automation row, so they cost nothing.
- `ADMISSION_POLICY` decides the status a new run is created in. The first rule with a verdict wins
  (`dropped` or `queued`, with its reason); when none objects, the run is `pending`. Rules ask the
  database only through `AdmissionFacts`, one query each and only when their setting is on. Every
  automation has a daily cap (its own or the operator's default), but only one whose plan has an LLM
  step is checked against it, so an automation with no LLM step and no caps of its own costs no query.

To add a rule: write a class with a `name` and a `decide` (or `refusal` for a guard), put it in the
tuple where it belongs, and add its unit test beside the others.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from app.definitions.automation import AutomationDefinition
from app.definitions.run_states import RunStatus
from app.engine.caps import OperatorCaps, effective_caps
from app.engine.estimate import Pricer, calls_a_model, first_run_estimate
from app.errors import AppError, Conflict, ErrorDetail
from app.persistence.models import AutomationStatus
from app.registry import Capability

__all__ = ["Pricer", "first_run_estimate"]

TriggerType = Literal["manual", "schedule", "webhook", "event", "mcp", "parent"]


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
    # The operator's spending defaults, for an automation that sets no caps of its own.
    caps: OperatorCaps = field(default_factory=OperatorCaps)
    # What an agent's `tools` patterns choose from, for pricing its tool schemas.
    capabilities: Iterable[Capability] = ()


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


def _daily_cap(fire: Fire) -> float | None:
    """The daily cap to check this fire against, None when none needs checking.

    An automation's own cap is always checked. The operator's default is checked only when the plan
    has an LLM step: nothing else spends, so such fires ask the ledger nothing.
    """
    execution = fire.definition.execution
    if execution.cost_cap_daily_usd is None and not calls_a_model(fire.definition):
        return None
    return effective_caps(execution, fire.caps).daily_cost_usd.value


class DailyCostCap:
    name = "daily_cost_cap"

    async def decide(self, fire: Fire) -> Verdict | None:
        daily = _daily_cap(fire)
        if daily is None:
            return None
        spent = await fire.facts.spent_today(fire.automation_id)
        if spent < daily:
            return None
        return Verdict(
            RunStatus.dropped, f"daily_cost_cap_reached: ${spent:.4f} spent today (UTC), cap ${daily:.4f}"
        )


class BudgetCap:
    """Drop a fire whose expected cost (recent average, else its LLM steps' worst case, see
    `app.engine.estimate`) is over the run budget or over what is left of today's cap."""

    name = "budget_cap"

    async def decide(self, fire: Fire) -> Verdict | None:
        cap = fire.definition.execution.budget_cap_usd
        daily = _daily_cap(fire)
        if cap is None and daily is None:
            return None
        estimate = await fire.facts.average_cost(fire.automation_id)
        basis = "recent runs average"
        if estimate is None:
            estimate = first_run_estimate(fire.definition, fire.pricer, fire.capabilities)
            basis = "its LLM steps could cost"
        if estimate is None:
            return None
        if cap is not None and estimate > cap:
            return Verdict(
                RunStatus.dropped, f"budget_exceeded: {basis} ${estimate:.4f}, over the cap ${cap:.4f}"
            )
        if daily is not None and estimate > 0:
            left = max(0.0, daily - await fire.facts.spent_today(fire.automation_id))
            if estimate > left:
                return Verdict(
                    RunStatus.dropped,
                    f"budget_exceeded: {basis} ${estimate:.4f}, over the ${left:.4f} left of today's "
                    f"${daily:.4f} cap",
                )
        return None


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
