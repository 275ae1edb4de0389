"""A fire decided as data: the `FirePlan` of one fire, and the admission that settles its verdict.

`plan_fire` runs the fire guards, resolves and checks the inputs, and asks the admission rules
(`app.services.runs.admission`) in memory. A plan whose rules asked no database fact leaves with its
verdict; one that needs a count, a spend or a key check (`FirePlan.verdict` None) is settled by
`admit_with_facts` inside the fire's transaction. The plan then gives its run row (`FirePlan.row`) to
the fire writer (`app.persistence.writer.fire`), which chooses the statements.
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.definitions import run_states
from app.definitions.automation import AutomationDefinition
from app.definitions.run_states import RunStatus
from app.errors import AppError, ErrorDetail, ValidationFailed
from app.persistence.base import utcnow
from app.persistence.repositories.runs import RunRepository
from app.persistence.types import AsyncSession
from app.persistence.writer.fire import RunRow, TriggerStamp, WakeUp
from app.registry import capabilities as native_capabilities
from app.services.governance.ledger import ledger_service
from app.services.runs.admission import AdmissionFacts, Fire, Verdict, admit, refusal
from app.services.runs.definition_cache import inputs_validator, parsed_definition
from app.services.runs.fire_inputs import fire_inputs, inputs_refusal
from app.services.runs.fire_request import FiredAutomation, FireOutcome, FireRequest
from app.services.runs.limits import EXECUTE_TASK, DispatchLimits, queue_for

IDEMPOTENCY_WINDOW = timedelta(hours=24)
_OUTCOME_OF_STATUS: dict[RunStatus, FireOutcome] = {
    RunStatus.pending: "created",
    RunStatus.queued: "queued",
    RunStatus.dropped: "dropped",
}


def _serialises(request: FireRequest, definition: AutomationDefinition) -> bool:
    return bool(request.idempotency_key) or definition.execution.concurrency != "allow_parallel"


@dataclass(frozen=True)
class FirePlan:
    """One fire that passed its guards and its inputs check, and what it will write."""

    automation: FiredAutomation
    request: FireRequest
    definition: AutomationDefinition
    inputs: dict[str, Any]
    problems: list[ErrorDetail]
    request_hash: str
    stamp: TriggerStamp | None = None
    # None until admission settles it; in memory when no rule asked the database.
    verdict: Verdict | None = None

    @property
    def serialise(self) -> bool:
        """Whether its automation's fires take turns: a key check or a policy count must not race."""
        return _serialises(self.request, self.definition)

    @property
    def status(self) -> RunStatus:
        """The status its run is created in (checked against the statuses a run may start in)."""
        if self.verdict is None:
            raise RuntimeError("the fire plan has no verdict yet: admit it first")
        return run_states.initial(self.verdict.status)

    @property
    def announces_end(self) -> bool:
        """A dropped live run is terminal at once: its end is owed to the space's endpoints."""
        return (
            self.verdict is not None
            and self.verdict.status is RunStatus.dropped
            and self.request.mode == "live"
        )

    @property
    def outcome(self) -> FireOutcome:
        return _OUTCOME_OF_STATUS.get(self.status, "created")

    def decided(self, verdict: Verdict) -> FirePlan:
        return dataclasses.replace(self, verdict=verdict)

    def row(self) -> RunRow:
        """The run this plan creates (its column values), its trigger's stamp and its wake-up."""
        request, automation = self.request, self.automation
        status = self.status
        now = utcnow()
        version, document = request.snapshot or (automation.version, automation.definition)
        queue = queue_for(self.definition)
        values = {
            "id": uuid.uuid4(),
            "space_id": automation.space_id,
            "automation_id": automation.id,
            "automation_version": version,
            "definition": document,
            "status": status,
            "reason": self.verdict.reason if self.verdict is not None else None,
            "queue": queue,
            "priority": request.priority,
            "trigger_type": request.trigger_type,
            "trigger_id": request.trigger_id,
            "trigger_payload": request.payload,
            "inputs": self.inputs,
            "idempotency_key": request.idempotency_key,
            "request_hash": self.request_hash,
            "chain_depth": request.chain_depth,
            # Who the run acts as: whoever started it by hand, else (schedule, webhook, event) the
            # automation's creator, as `run.creator_id` promises.
            "created_by": request.actor_id if request.actor_id is not None else automation.created_by,
            "callback_url": request.callback_url,
            "mode": request.mode,
            "llm_mode": request.llm,
            "replay_of": request.replay_of,
            "parent_run_id": request.parent.run_id if request.parent is not None else None,
            "parent_path": request.parent.path if request.parent is not None else None,
            "depth": request.parent.depth if request.parent is not None else 0,
            "created_at": now,
            "status_changed_at": now,
            "finished_at": now if status in run_states.TERMINAL else None,
            "enqueued_at": now if status is RunStatus.pending else None,
        }
        wake_up = WakeUp(EXECUTE_TASK, queue) if status is RunStatus.pending else None
        return RunRow(values, self.stamp, wake_up)


class RunFacts:
    """Admission facts from the database, in the fire's transaction."""

    def __init__(self, runs: RunRepository) -> None:
        self.runs = runs
        self._spent_today: dict[uuid.UUID, float] = {}

    async def in_flight(self, automation_id: uuid.UUID) -> int:
        # Dry and verify runs neither wait for live ones nor make live ones wait.
        return await self.runs.count_in(run_states.IN_FLIGHT, automation_id, live_only=True)

    async def spent_today(self, automation_id: uuid.UUID) -> float:
        # Asked by the daily cap and by the budget rule: one query per fire.
        if automation_id not in self._spent_today:
            self._spent_today[automation_id] = await ledger_service.spent_today(
                self.runs.session, automation_id, utcnow()
            )
        return self._spent_today[automation_id]

    async def average_cost(self, automation_id: uuid.UUID) -> float | None:
        return await self.runs.average_cost(automation_id)

    async def slots_taken(self) -> int:
        # Serialises fires that could take the last slot; held until the fire's transaction ends.
        await self.runs.lock_global_cap()
        return await self.runs.count_in(run_states.HOLDS_SLOT)


class NeedsDatabase(Exception):
    """An admission rule asked for a database fact: the fire cannot be decided in memory."""


class NoFacts:
    """Admission facts for a fire decided in memory: any question means it needs its transaction."""

    async def in_flight(self, automation_id: uuid.UUID) -> int:
        raise NeedsDatabase

    async def spent_today(self, automation_id: uuid.UUID) -> float:
        raise NeedsDatabase

    async def average_cost(self, automation_id: uuid.UUID) -> float | None:
        raise NeedsDatabase

    async def slots_taken(self) -> int:
        raise NeedsDatabase


_NO_FACTS = NoFacts()


def _admission(
    automation_id: uuid.UUID,
    definition: AutomationDefinition,
    request: FireRequest,
    problems: list[ErrorDetail],
    limits: DispatchLimits,
    facts: AdmissionFacts,
) -> Fire:
    return Fire(
        automation_id=automation_id,
        definition=definition,
        facts=facts,
        max_concurrent_runs=limits.max_concurrent_runs,
        pricer=limits.pricer,
        caps=limits.caps,
        capabilities=native_capabilities,
        refuse_reason=request.refuse_reason,
        input_problems=problems,
        mode=request.mode,
    )


async def _admit_in_memory(
    automation_id: uuid.UUID,
    definition: AutomationDefinition,
    request: FireRequest,
    problems: list[ErrorDetail],
    limits: DispatchLimits,
) -> Verdict | None:
    """Admission decided without the database, or None when a rule asks for a fact."""
    try:
        return await admit(_admission(automation_id, definition, request, problems, limits, _NO_FACTS))
    except NeedsDatabase:
        return None


async def admit_with_facts(session: AsyncSession, plan: FirePlan, limits: DispatchLimits) -> Verdict:
    """Admission with the database's facts, in the fire's transaction (after its lock, if any)."""
    facts = RunFacts(RunRepository(session))
    fire = _admission(plan.automation.id, plan.definition, plan.request, plan.problems, limits, facts)
    return await admit(fire)


async def plan_fire(
    session: AsyncSession,
    automation: FiredAutomation,
    request: FireRequest,
    limits: DispatchLimits,
    note_fired_at: datetime | None = None,
) -> FirePlan | AppError:
    """The plan of one fire, or the error that refuses it before anything is written: a fire guard's
    (archived; a trigger's fire on a paused automation) or, for an API caller, its inputs' 422.

    A plan whose automation's fires take turns (`FirePlan.serialise`) is not admitted here: its counts
    and key check belong under its lock. With `note_fired_at` and a trigger, the run stamps the trigger.
    """
    error = refusal(automation.status, request.trigger_type)
    if error is not None:
        return error
    version, document = request.snapshot or (automation.version, automation.definition)
    definition = parsed_definition(automation.id, version, document)
    validator = inputs_validator(automation.id, version, definition)
    inputs, problems = await fire_inputs(session, definition, automation, request, validator)
    if problems and request.refuse_bad_inputs:
        return inputs_refusal(problems)
    stamp = (
        TriggerStamp(request.trigger_id, note_fired_at)
        if note_fired_at is not None and request.trigger_id is not None
        else None
    )
    verdict = (
        None
        if _serialises(request, definition)
        else await _admit_in_memory(automation.id, definition, request, problems, limits)
    )
    return FirePlan(automation, request, definition, inputs, problems, request.request_hash(), stamp, verdict)


def key_reused() -> ValidationFailed:
    """The 422 for an idempotency key that comes back with a different request."""
    return ValidationFailed(
        "This Idempotency-Key was used with a different request.",
        code="idempotency_key_reused",
        details=[ErrorDetail(path="/header/idempotency-key", message="reuse a key only to repeat a request")],
    )
