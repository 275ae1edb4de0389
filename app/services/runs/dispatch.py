"""The dispatcher: the one path every kind of fire takes, from trigger payload to a queued or pending run.

guards (archived, paused) → resolve inputs → validate them → idempotency → admission rules (concurrency
policy, daily cap, budget, global cap; see `app.services.runs.admission`) → snapshot the definition → route
to a queue by duration class → enqueue after commit.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from app import jobs, metrics
from app.definitions import run_states
from app.definitions.automation import AutomationDefinition
from app.definitions.json_schema import CompiledSchema, compiled_schema
from app.definitions.run_modes import LlmMode, RunMode
from app.definitions.run_states import RunStatus
from app.definitions.signals import StepError
from app.engine.caps import OperatorCaps
from app.errors import AppError, ErrorDetail, ValidationFailed
from app.lru import LruCache
from app.persistence.base import utcnow
from app.persistence.models import Automation, AutomationStatus, Run
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.repositories.runs import RunRepository
from app.persistence.repositories.triggers import TriggerRepository
from app.persistence.transaction import in_autocommit, leave_autocommit
from app.persistence.types import AsyncSession
from app.registry import actions
from app.registry import capabilities as native_capabilities
from app.registry.ports import LlmPort
from app.services.governance.ledger import ledger_service
from app.services.outbound.outbox import record_run_finished
from app.services.runs.admission import Fire, Pricer, TriggerType, Verdict, admit, first_run_estimate, refusal
from app.services.runs.fire_inputs import fire_inputs, inputs_refusal

__all__ = [
    "EXECUTE_TASK",
    "DispatchLimits",
    "FireRequest",
    "FireResult",
    "FiredAutomation",
    "Pricer",
    "dispatcher",
    "first_run_estimate",
    "parsed_definition",
    "pricer",
]

IDEMPOTENCY_WINDOW = timedelta(hours=24)
EXECUTE_TASK = "runs.execute"
_QUEUE_OF_CLASS = {"fast": "runs.fast", "medium": "runs.medium", "long": "runs.long"}
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


class FiredAutomation(Protocol):
    """What a fire reads of its automation: an `Automation` row, or the same columns selected as plain
    values by a hot path (`AutomationHead`)."""

    @property
    def id(self) -> uuid.UUID: ...

    @property
    def space_id(self) -> uuid.UUID: ...

    @property
    def status(self) -> AutomationStatus: ...

    @property
    def version(self) -> int: ...

    @property
    def created_by(self) -> uuid.UUID | None: ...

    @property
    def definition(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class FireRequest:
    """One fire of an automation, whatever triggered it."""

    trigger_type: TriggerType
    payload: dict[str, Any] = field(default_factory=dict)
    inputs: dict[str, Any] = field(default_factory=dict)
    trigger_id: uuid.UUID | None = None
    idempotency_key: str | None = None
    actor_id: uuid.UUID | None = None
    chain_depth: int = 0
    last_fired_at: str | None = None
    # An API caller hears about bad inputs (422, nothing created); a trigger's fire is recorded as dropped.
    refuse_bad_inputs: bool = True
    # Set when the caller already knows the fire must not run (e.g. an event chain too deep): a dropped run.
    refuse_reason: str | None = None
    # Checked by the caller (egress guard, the space's callback secret); the terminal event goes there too.
    callback_url: str | None = None
    # A dry or verify run holds writes back, stays out of the concurrency policy and announces no end.
    mode: RunMode = "live"
    llm: LlmMode = "run"
    replay_of: uuid.UUID | None = None
    # (version, document) to run instead of the automation's current one: a replay of a snapshot.
    snapshot: tuple[int, dict[str, Any]] | None = None
    # Where a queued run stands: higher first, then oldest first (only a queued run waits on it).
    priority: int = 0

    def request_hash(self) -> str:
        request: dict[str, Any] = {"inputs": self.inputs, "payload": self.payload}
        if (self.mode, self.llm) != ("live", "run"):
            # Only a try-out adds its mode, so a live request hashes as it always did.
            request.update(mode=self.mode, llm=self.llm)
        body = json.dumps(request, sort_keys=True, default=str)
        return hashlib.sha256(body.encode()).hexdigest()


@dataclass(frozen=True)
class FireResult:
    run: Run
    created: bool


PARSED_CACHE_SIZE = 2048
# Keyed by (automation id, version): a version is immutable (every edit makes a new one), so a cached
# entry never goes stale.
_PARSED: LruCache[tuple[uuid.UUID, int], AutomationDefinition] = LruCache(PARSED_CACHE_SIZE)
_VALIDATORS: LruCache[tuple[uuid.UUID, int], CompiledSchema] = LruCache(PARSED_CACHE_SIZE)


def parsed_definition(
    automation_id: uuid.UUID, version: int, document: dict[str, Any]
) -> AutomationDefinition:
    """An automation version's definition as a model, parsed once per (automation, version).

    Fires pass the automation's current version; a claim passes its run's snapshot, which is that same
    version's document, so both share one entry.
    """
    return _PARSED.get_or_build(
        (automation_id, version), lambda: AutomationDefinition.model_validate(document)
    )


def inputs_validator(
    automation: FiredAutomation, definition: AutomationDefinition, version: int | None = None
) -> CompiledSchema:
    """The inputs schema, compiled once per (automation, version) like the parsed definition."""
    return _VALIDATORS.get_or_build(
        (automation.id, automation.version if version is None else version),
        lambda: compiled_schema(definition.inputs.schema_),
    )


def queue_for(definition: AutomationDefinition) -> str:
    """The queue of the slowest step's duration class (unknown actions count as medium)."""
    slowest = "fast"
    for step in [*definition.plan, *definition.execution.on_failure]:
        action = actions.get(step.action)
        duration = action.duration_class if action is not None else "medium"
        if _CLASS_RANK[duration] > _CLASS_RANK[slowest]:
            slowest = duration
    return _QUEUE_OF_CLASS[slowest]


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


class _NeedsDatabase(Exception):
    """An admission rule asked for a database fact: the fire cannot be decided in memory."""


class _NoFacts:
    """Admission facts for a fire decided in memory: any question means it needs the one-by-one path."""

    async def in_flight(self, automation_id: uuid.UUID) -> int:
        raise _NeedsDatabase

    async def spent_today(self, automation_id: uuid.UUID) -> float:
        raise _NeedsDatabase

    async def average_cost(self, automation_id: uuid.UUID) -> float | None:
        raise _NeedsDatabase

    async def slots_taken(self) -> int:
        raise _NeedsDatabase


_NO_FACTS = _NoFacts()


def _run_values(
    automation: FiredAutomation,
    definition: AutomationDefinition,
    request: FireRequest,
    inputs: dict[str, Any],
    verdict: Verdict,
    request_hash: str | None = None,
) -> dict[str, Any]:
    """The column values of the run a fire creates."""
    now = utcnow()
    status = run_states.initial(verdict.status)
    version, document = request.snapshot or (automation.version, automation.definition)
    return {
        "id": uuid.uuid4(),
        "space_id": automation.space_id,
        "automation_id": automation.id,
        "automation_version": version,
        "definition": document,
        "status": status,
        "reason": verdict.reason,
        "queue": queue_for(definition),
        "priority": request.priority,
        "trigger_type": request.trigger_type,
        "trigger_id": request.trigger_id,
        "trigger_payload": request.payload,
        "inputs": inputs,
        "idempotency_key": request.idempotency_key,
        "request_hash": request_hash or request.request_hash(),
        "chain_depth": request.chain_depth,
        # Who the run acts as: whoever started it by hand, else (schedule, webhook, event) the
        # automation's creator, as `run.creator_id` promises.
        "created_by": request.actor_id if request.actor_id is not None else automation.created_by,
        "callback_url": request.callback_url,
        "mode": request.mode,
        "llm_mode": request.llm,
        "replay_of": request.replay_of,
        "created_at": now,
        "status_changed_at": now,
        "finished_at": now if status in run_states.TERMINAL else None,
        "enqueued_at": now if status is RunStatus.pending else None,
    }


async def _admit_in_memory(
    automation: FiredAutomation,
    definition: AutomationDefinition,
    request: FireRequest,
    problems: list[ErrorDetail],
    limits: DispatchLimits,
) -> Verdict | None:
    """Admission decided without the database, or None when a rule asks for a count of runs."""
    try:
        return await admit(
            Fire(
                automation_id=automation.id,
                definition=definition,
                facts=_NO_FACTS,
                max_concurrent_runs=limits.max_concurrent_runs,
                pricer=limits.pricer,
                caps=limits.caps,
                capabilities=native_capabilities,
                refuse_reason=request.refuse_reason,
                input_problems=problems,
                mode=request.mode,
            )
        )
    except _NeedsDatabase:
        return None


def _new_run(
    automation: FiredAutomation,
    definition: AutomationDefinition,
    request: FireRequest,
    inputs: dict[str, Any],
    verdict: Verdict,
    request_hash: str | None = None,
) -> Run:
    return Run(**_run_values(automation, definition, request, inputs, verdict, request_hash))


async def _after_create(session: AsyncSession, run: Run) -> None:
    """What follows a new run's row: its wake-up after the commit, or a dropped run's outbox notice."""
    metrics.run_created(run.trigger_type, RunStatus(run.status).value)
    if run.status is RunStatus.pending:
        jobs.enqueue(EXECUTE_TASK, str(run.id), queue=run.queue)
    elif run.status is RunStatus.dropped and run.mode == "live":
        await record_run_finished(session, run)


class Dispatcher:
    async def fire(
        self,
        session: AsyncSession,
        automation: FiredAutomation,
        request: FireRequest,
        limits: DispatchLimits,
        *,
        note_fired_at: datetime | None = None,
    ) -> FireResult:
        """Create the run this fire asks for (or return the one its idempotency key already made).

        Raises the first fire guard's error (archived; a trigger's fire on a paused automation) before
        anything is written. With `note_fired_at` (a trigger's fire: `request.trigger_id` is set), a
        new run is written together with its trigger's `last_fired_at` in one statement
        (`TriggerRepository.insert_run_and_note_fired`); its `Run` is then a plain copy of the row,
        not an object of the session.

        A session in autocommit (`app.persistence.transaction.autocommit`) writes a trigger's common
        fire (no idempotency key, parallel runs allowed, admitted without counting anything) in that
        one statement, its own transaction; any other fire first leaves autocommit for a transaction.
        """
        error = refusal(automation.status, request.trigger_type)
        if error is not None:
            raise error
        version, document = request.snapshot or (automation.version, automation.definition)
        definition = parsed_definition(automation.id, version, document)
        runs = RunRepository(session)
        # Inputs first: checking them needs no lock, so no other fire waits on it.
        validator = inputs_validator(automation, definition, version)
        inputs, problems = await fire_inputs(session, definition, automation, request, validator)
        if in_autocommit(session):
            made = await self._fire_in_one_statement(
                session, automation, definition, request, inputs, problems, limits, note_fired_at
            )
            if made is not None:
                return made
            await leave_autocommit(session)
        if request.idempotency_key or definition.execution.concurrency != "allow_parallel":
            # Serialise fires of this automation: the key check and the policy count cannot race.
            await AutomationRepository(session).lock(automation.id)

        if problems and request.refuse_bad_inputs:
            raise inputs_refusal(problems)

        request_hash = request.request_hash()
        if request.idempotency_key:
            existing = await self._existing(runs, automation.id, request.idempotency_key, request_hash)
            if existing is not None:
                return FireResult(existing, created=False)

        verdict = await admit(
            Fire(
                automation_id=automation.id,
                definition=definition,
                facts=RunFacts(runs),
                max_concurrent_runs=limits.max_concurrent_runs,
                pricer=limits.pricer,
                caps=limits.caps,
                capabilities=native_capabilities,
                refuse_reason=request.refuse_reason,
                input_problems=problems,
                mode=request.mode,
            )
        )
        values = _run_values(automation, definition, request, inputs, verdict, request_hash)
        if note_fired_at is not None and request.trigger_id is not None:
            await TriggerRepository(session).insert_run_and_note_fired(
                values, request.trigger_id, note_fired_at
            )
            run = Run(**values)
        else:
            run = await runs.create(Run(**values))
        await _after_create(session, run)
        return FireResult(run, created=True)

    async def _fire_in_one_statement(
        self,
        session: AsyncSession,
        automation: FiredAutomation,
        definition: AutomationDefinition,
        request: FireRequest,
        inputs: dict[str, Any],
        problems: list[ErrorDetail],
        limits: DispatchLimits,
        note_fired_at: datetime | None,
    ) -> FireResult | None:
        """The common trigger fire written by one statement, or None when it needs a transaction: a
        key to check, a policy or cap that counts runs, or a run that is not simply pending (a dropped
        run also writes its outbox notice)."""
        if note_fired_at is None or request.trigger_id is None or request.idempotency_key:
            return None
        if definition.execution.concurrency != "allow_parallel" or (problems and request.refuse_bad_inputs):
            return None
        verdict = await _admit_in_memory(automation, definition, request, problems, limits)
        if verdict is None or verdict.status is not RunStatus.pending:
            return None
        values = _run_values(automation, definition, request, inputs, verdict)
        await TriggerRepository(session).insert_run_and_note_fired(values, request.trigger_id, note_fired_at)
        run = Run(**values)
        await _after_create(session, run)
        return FireResult(run, created=True)

    async def fire_many(
        self,
        session: AsyncSession,
        fires: Sequence[tuple[Automation, FireRequest]],
        limits: DispatchLimits,
    ) -> list[FireResult | AppError]:
        """Fire many automations at once (a schedule tick's due triggers): each answer in order, a
        result or the AppError that fire raised.

        Fires that admission can decide without the database (no idempotency key, `allow_parallel`, no
        cap asking for a count) are decided in memory and their runs written with one INSERT. The
        others go through `fire` one by one, each in a savepoint, so a refusal leaves the rest intact.
        """
        answers: list[FireResult | AppError | None] = [None] * len(fires)
        made: list[tuple[int, Run]] = []
        one_by_one: list[int] = []
        for position, (automation, request) in enumerate(fires):
            error = refusal(automation.status, request.trigger_type)
            if error is not None:
                answers[position] = error
                continue
            definition = parsed_definition(automation.id, automation.version, automation.definition)
            if request.idempotency_key or definition.execution.concurrency != "allow_parallel":
                one_by_one.append(position)
                continue
            validator = inputs_validator(automation, definition, automation.version)
            inputs, problems = await fire_inputs(session, definition, automation, request, validator)
            if problems and request.refuse_bad_inputs:
                one_by_one.append(position)  # `fire` raises the 422 the caller expects
                continue
            verdict = await _admit_in_memory(automation, definition, request, problems, limits)
            if verdict is None:
                one_by_one.append(position)
                continue
            made.append((position, _new_run(automation, definition, request, inputs, verdict)))
        if made:
            await RunRepository(session).create_many([run for _, run in made])
            for position, run in made:
                await _after_create(session, run)
                answers[position] = FireResult(run, created=True)
        for position in one_by_one:
            automation, request = fires[position]
            try:
                async with session.begin_nested():
                    answers[position] = await self.fire(session, automation, request, limits)
            except AppError as exc:
                answers[position] = exc
        return [answer for answer in answers if answer is not None]

    async def _existing(
        self, runs: RunRepository, automation_id: uuid.UUID, key: str, request_hash: str
    ) -> Run | None:
        await runs.forget_idempotency_keys_before(automation_id, key, utcnow() - IDEMPOTENCY_WINDOW)
        existing = await runs.by_idempotency_key(automation_id, key)
        if existing is not None and existing.request_hash != request_hash:
            raise ValidationFailed(
                "This Idempotency-Key was used with a different request.",
                code="idempotency_key_reused",
                details=[
                    ErrorDetail(
                        path="/header/idempotency-key", message="reuse a key only to repeat a request"
                    )
                ],
            )
        return existing


dispatcher = Dispatcher()
