"""The dispatcher: the one path every kind of fire takes, from trigger payload to a queued or pending run.

resolve inputs → validate them → idempotency → concurrency policy → global cap → budget pre-check →
snapshot the definition → route to a queue by duration class → enqueue after commit.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from app import jobs
from app.definitions.automation import AutomationDefinition
from app.definitions.json_schema import CompiledSchema, ValidationTooCostly, Violation, compiled_schema
from app.definitions.pointers import join
from app.definitions.signals import StepError
from app.engine.inputs import FireContext, resolve_inputs
from app.errors import Conflict, ErrorDetail, ValidationFailed
from app.persistence.base import utcnow
from app.persistence.models import Automation, AutomationStatus, Run
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.repositories.runs import ACTIVE, RunRepository
from app.registry import actions
from app.registry.ports import LlmPort
from app.services.ledger import ledger_service
from app.services.outbox import record_run_finished

IDEMPOTENCY_WINDOW = timedelta(hours=24)
EXECUTE_TASK = "runs.execute"
_QUEUE_OF_CLASS = {"fast": "runs.fast", "medium": "runs.medium", "long": "runs.long"}
_CLASS_RANK = {"fast": 0, "medium": 1, "long": 2}


Pricer = Callable[[str, int], float | None]
LLM_ACTIONS = ("agent_task", "llm_complete")
DEFAULT_LLM_MAX_TOKENS = 1024


@dataclass(frozen=True)
class DispatchLimits:
    """Operator settings the dispatcher honours, and how to price an LLM call before any run exists."""

    max_concurrent_runs: int = 0
    # (model, max output tokens) -> worst-case USD, or None when the model has no known price.
    pricer: Pricer | None = None


def pricer(llm: LlmPort) -> Pricer:
    """Price an LLM step's output cap with the deployment's model prices (None when unknown)."""

    def price(model: str, max_tokens: int) -> float | None:
        try:
            return llm.worst_case_cost(model, 0, max_tokens)
        except StepError:
            return None

    return price


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


@dataclass(frozen=True)
class FireRequest:
    """One fire of an automation, whatever triggered it."""

    trigger_type: Literal["manual", "schedule", "webhook", "event"]
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

    def request_hash(self) -> str:
        body = json.dumps({"inputs": self.inputs, "payload": self.payload}, sort_keys=True, default=str)
        return hashlib.sha256(body.encode()).hexdigest()


@dataclass(frozen=True)
class FireResult:
    run: Run
    created: bool


_PARSED: OrderedDict[tuple[uuid.UUID, int], AutomationDefinition] = OrderedDict()
PARSED_CACHE_SIZE = 2048


def parsed_definition(automation: Automation) -> AutomationDefinition:
    """The automation's definition as a model, parsed once per (automation, version) on the hot path.

    A version is immutable (every edit makes a new one), so a cached entry never goes stale.
    """
    key = (automation.id, automation.version)
    definition = _PARSED.get(key)
    if definition is None:
        definition = _PARSED[key] = AutomationDefinition.model_validate(automation.definition)
        if len(_PARSED) > PARSED_CACHE_SIZE:
            _PARSED.popitem(last=False)
    return definition


_VALIDATORS: OrderedDict[tuple[uuid.UUID, int], CompiledSchema] = OrderedDict()
# Keyword evaluations a fire may spend validating inputs on the event loop (about 20 ms at most,
# ordinary inputs need under a hundred); a check that needs more moves to a thread, so one costly fire
# never stalls the API.
INLINE_VALIDATION_BUDGET = 5_000
MAX_INPUT_PROBLEMS = 50


def inputs_validator(automation: Automation, definition: AutomationDefinition) -> CompiledSchema:
    """The inputs schema, compiled once per (automation, version) like the parsed definition."""
    key = (automation.id, automation.version)
    validator = _VALIDATORS.get(key)
    if validator is None:
        validator = _VALIDATORS[key] = compiled_schema(definition.inputs.schema_)
        if len(_VALIDATORS) > PARSED_CACHE_SIZE:
            _VALIDATORS.popitem(last=False)
    return validator


def queue_for(definition: AutomationDefinition) -> str:
    """The queue of the slowest step's duration class (unknown actions count as medium)."""
    slowest = "fast"
    for step in [*definition.plan, *definition.execution.on_failure]:
        action = actions.get(step.action)
        duration = action.duration_class if action is not None else "medium"
        if _CLASS_RANK[duration] > _CLASS_RANK[slowest]:
            slowest = duration
    return _QUEUE_OF_CLASS[slowest]


def _violations_or_refusal(validator: CompiledSchema, inputs: dict[str, Any]) -> list[Violation]:
    try:
        return validator.violations(inputs, limit=MAX_INPUT_PROBLEMS)
    except ValidationTooCostly as exc:
        return [Violation((), str(exc), inputs)]


class Dispatcher:
    async def fire(
        self, session: AsyncSession, automation: Automation, request: FireRequest, limits: DispatchLimits
    ) -> FireResult:
        """Create the run this fire asks for (or return the one its idempotency key already made)."""
        if automation.status is AutomationStatus.archived:
            raise Conflict("An archived automation cannot run.", code="automation_archived")
        definition = parsed_definition(automation)
        runs = RunRepository(session)
        # Inputs first: checking them needs no lock, so no other fire waits on it.
        inputs, problems = await self._inputs(definition, automation, request)
        policy = definition.execution.concurrency
        if request.idempotency_key or policy != "allow_parallel":
            # Serialise fires of this automation: the key check and the policy count cannot race.
            await AutomationRepository(session).lock(automation.id)

        if problems and request.refuse_bad_inputs:
            raise ValidationFailed(
                "The inputs do not match the automation's inputs schema.",
                code="invalid_inputs",
                details=problems,
            )

        request_hash = request.request_hash()
        if request.idempotency_key:
            existing = await self._existing(runs, automation.id, request.idempotency_key, request_hash)
            if existing is not None:
                return FireResult(existing, created=False)

        now = utcnow()
        status, reason = "pending", None
        if request.refuse_reason:
            status, reason = "dropped", request.refuse_reason
        elif problems:
            status, reason = (
                "dropped",
                "invalid_inputs: " + "; ".join(f"{d.path} {d.message}" for d in problems),
            )
        elif automation.status is not AutomationStatus.active and request.trigger_type != "manual":
            status, reason = "dropped", "automation_paused"
        else:
            status, reason = await self._admission(runs, automation, definition, limits)

        run = Run(
            id=uuid.uuid4(),
            space_id=automation.space_id,
            automation_id=automation.id,
            automation_version=automation.version,
            definition=automation.definition,
            status=status,
            reason=reason,
            queue=queue_for(definition),
            trigger_type=request.trigger_type,
            trigger_id=request.trigger_id,
            trigger_payload=request.payload,
            inputs=inputs,
            idempotency_key=request.idempotency_key,
            request_hash=request_hash,
            chain_depth=request.chain_depth,
            created_by=request.actor_id,
            callback_url=request.callback_url,
            created_at=now,
            finished_at=now if status == "dropped" else None,
            enqueued_at=now if status == "pending" else None,
        )
        await runs.create(run)
        if status == "pending":
            jobs.enqueue(EXECUTE_TASK, str(run.id), queue=run.queue)
        elif status == "dropped":
            await record_run_finished(session, run)
        return FireResult(run, created=True)

    async def _inputs(
        self, definition: AutomationDefinition, automation: Automation, request: FireRequest
    ) -> tuple[dict[str, Any], list[ErrorDetail]]:
        schema = definition.inputs.schema_
        fire = FireContext(
            last_fired_at=request.last_fired_at,
            creator=str(automation.created_by) if automation.created_by else None,
        )
        inputs = resolve_inputs(schema, request.inputs, fire)
        validator = inputs_validator(automation, definition)
        try:
            found = validator.violations(inputs, limit=MAX_INPUT_PROBLEMS, budget=INLINE_VALIDATION_BUDGET)
        except ValidationTooCostly:
            found = await asyncio.to_thread(_violations_or_refusal, validator, inputs)
        problems = [
            ErrorDetail(path=join("inputs", *violation.path), message=violation.message, code="invalid_input")
            for violation in found
        ]
        return inputs, problems

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

    async def _admission(
        self,
        runs: RunRepository,
        automation: Automation,
        definition: AutomationDefinition,
        limits: DispatchLimits,
    ) -> tuple[str, str | None]:
        """pending, queued (policy or global cap) or dropped (policy or budget), with the reason."""
        policy = definition.execution.concurrency
        if policy != "allow_parallel":
            in_flight = await runs.count_in([*ACTIVE, "queued"], automation.id)
            if in_flight and policy == "drop_if_running":
                return "dropped", "already_running"
            if in_flight:
                return "queued", "waiting_for_previous_run"
        daily = definition.execution.cost_cap_daily_usd
        if daily is not None:
            spent = await ledger_service.spent_today(runs.session, automation.id, utcnow())
            if spent >= daily:
                return "dropped", f"daily_cost_cap_reached: ${spent:.4f} spent today (UTC), cap ${daily:.4f}"
        cap = definition.execution.budget_cap_usd
        if cap is not None:
            estimate = await runs.average_cost(automation.id)
            basis = "recent runs average"
            if estimate is None:
                estimate, basis = first_run_estimate(definition, limits.pricer), "its LLM steps could cost"
            if estimate is not None and estimate > cap:
                return "dropped", f"budget_exceeded: {basis} ${estimate:.4f}, over the cap ${cap:.4f}"
        if limits.max_concurrent_runs > 0:
            await runs.lock_global_cap()
            if await runs.count_in(ACTIVE) >= limits.max_concurrent_runs:
                return "queued", "global_concurrency_cap"
        return "pending", None


class Promoter:
    """Moves queued runs to pending, oldest first, when their automation and the global cap allow."""

    async def promote(self, session: AsyncSession, limits: DispatchLimits, *, batch: int = 100) -> list[Run]:
        runs = RunRepository(session)
        cap = limits.max_concurrent_runs
        if cap > 0:
            await runs.lock_global_cap()
        active = await runs.count_in(ACTIVE) if cap > 0 else 0
        promoted: list[Run] = []
        busy: set[uuid.UUID] = set()
        for run in await runs.queued_in_order(batch):
            if cap > 0 and active >= cap:
                break
            serial = run.definition.get("execution", {}).get("concurrency") != "allow_parallel"
            if serial and (run.automation_id in busy or await runs.count_in(ACTIVE, run.automation_id)):
                busy.add(run.automation_id)
                continue
            run.status, run.reason, run.enqueued_at = "pending", None, utcnow()
            jobs.enqueue(EXECUTE_TASK, str(run.id), queue=run.queue)
            promoted.append(run)
            busy.add(run.automation_id)
            active += 1
        await session.flush()
        return promoted


dispatcher = Dispatcher()
promoter = Promoter()
