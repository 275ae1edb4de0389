"""Preview a saved automation or an unsaved definition: resolved inputs, steps, calls, hosts, cost, fires.

Reads only: no run, no invocation, no ledger entry is written. The cost is the automation's recent
average run cost when it has history, else its LLM steps' worst case at the models' prices, their
prompts as rendered here (`app.engine.estimate`); per month it is that times the schedule's fires in 30
days (unknown when another kind of trigger fires it). `caps` are the spending caps in effect and where
each comes from; `warnings` are what a saved definition would be warned of (a stored grant that lets an
agent's http.request reach any host, `hosts` missing or `["*"]`).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from app.definitions.automation import AutomationDefinition, ScheduleTrigger
from app.definitions.json_schema import compiled_schema
from app.definitions.pointers import join
from app.engine.call_modes import CallPolicy
from app.engine.caps import effective_caps
from app.engine.estimate import first_run_estimate
from app.engine.inputs import FireContext, resolve_inputs, space_default_names
from app.engine.preview import fires_per_month, next_fires, preview_steps
from app.engine.standing_grants import StandingGrant
from app.engine.validation import Vocabulary
from app.engine.validation.spending import http_grant_problems
from app.errors import ErrorDetail, ValidationFailed
from app.persistence.base import utcnow
from app.persistence.models import Automation, Space
from app.persistence.repositories.input_defaults import InputDefaultRepository
from app.persistence.repositories.policy import ApprovalGrantRepository
from app.persistence.repositories.runs import RunRepository
from app.persistence.types import AsyncSession
from app.services.automations.definitions import check_definition
from app.services.identity.access import Permissions, SpaceAccess
from app.services.runs.limits import DispatchLimits

MAX_INPUT_PROBLEMS = 50


async def _policy(
    session: AsyncSession,
    space_id: uuid.UUID,
    definition: AutomationDefinition,
    automation: Automation | None,
) -> CallPolicy:
    """The modes, grants and standing approvals a run would be governed by, read now (a run reads them
    at each claim); an unsaved definition has no overrides or standing approvals of its own."""
    space = await session.get(Space, space_id)
    grants = definition.execution.tool_grants
    standing = await ApprovalGrantRepository(session).live(automation.id) if automation is not None else []
    return CallPolicy(
        automation_modes=(automation.action_modes if automation is not None else None) or {},
        space_modes=(space.action_modes if space is not None else None) or {},
        write_policy=definition.execution.write_policy,
        grants=[grant.model_dump(exclude_none=True) for grant in grants] if grants is not None else None,
        approval_grants=tuple(StandingGrant(*row) for row in standing),
    )


async def _space_defaults(
    session: AsyncSession, space_id: uuid.UUID, definition: AutomationDefinition, provided: dict[str, Any]
) -> dict[str, Any]:
    """The space's values for the inputs left out that default to them, as a fire would read them."""
    wanted = space_default_names(definition.inputs.schema_, provided)
    return await InputDefaultRepository(session).values(space_id, wanted) if wanted else {}


def _inputs(
    definition: AutomationDefinition,
    provided: dict[str, Any],
    creator: str | None,
    space_defaults: Mapping[str, Any],
) -> dict[str, Any]:
    fire = FireContext(creator=creator, space_defaults=space_defaults)
    inputs = resolve_inputs(definition.inputs.schema_, provided, fire)
    problems = compiled_schema(definition.inputs.schema_).violations(inputs, limit=MAX_INPUT_PROBLEMS)
    if problems:
        raise ValidationFailed(
            "The inputs do not match the automation's inputs schema.",
            code="invalid_inputs",
            details=[
                ErrorDetail(path=join("inputs", *v.path), message=v.message, code="invalid_input")
                for v in problems
            ],
        )
    return inputs


class PreviewService:
    async def of_automation(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        automation: Automation,
        *,
        inputs: dict[str, Any],
        trigger_payload: dict[str, Any],
        vocabulary: Vocabulary,
        limits: DispatchLimits,
        fixed_hosts: Mapping[str, str],
    ) -> dict[str, Any]:
        """Preview the automation's current version."""
        access.require(Permissions.read)
        definition = AutomationDefinition.model_validate(automation.definition)
        average = await RunRepository(session).average_cost(automation.id)
        return await self._preview(
            definition,
            policy=await _policy(session, access.space_id, definition, automation),
            automation_id=automation.id,
            version=automation.version,
            inputs=inputs,
            trigger_payload=trigger_payload,
            creator=str(automation.created_by) if automation.created_by else None,
            space_defaults=await _space_defaults(session, access.space_id, definition, inputs),
            space_id=access.space_id,
            vocabulary=vocabulary,
            limits=limits,
            fixed_hosts=fixed_hosts,
            history=average,
            stored=automation.definition,
        )

    async def of_definition(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        document: Any,
        *,
        inputs: dict[str, Any],
        trigger_payload: dict[str, Any],
        vocabulary: Vocabulary,
        limits: DispatchLimits,
        fixed_hosts: Mapping[str, str],
    ) -> dict[str, Any]:
        """Preview a definition that is not saved; one that does not validate is a 422 with its problems."""
        access.require(Permissions.read)
        checked = await check_definition(document, vocabulary)
        return await self._preview(
            checked.definition,
            policy=await _policy(session, access.space_id, checked.definition, None),
            automation_id=None,
            version=None,
            inputs=inputs,
            trigger_payload=trigger_payload,
            creator=str(access.user_id),
            space_defaults=await _space_defaults(session, access.space_id, checked.definition, inputs),
            space_id=access.space_id,
            vocabulary=vocabulary,
            limits=limits,
            fixed_hosts=fixed_hosts,
            history=None,
            stored=None,
        )

    async def _preview(
        self,
        definition: AutomationDefinition,
        *,
        policy: CallPolicy,
        automation_id: uuid.UUID | None,
        version: int | None,
        inputs: dict[str, Any],
        trigger_payload: dict[str, Any],
        creator: str | None,
        space_defaults: Mapping[str, Any],
        space_id: uuid.UUID,
        vocabulary: Vocabulary,
        limits: DispatchLimits,
        fixed_hosts: Mapping[str, str],
        history: float | None,
        stored: dict[str, Any] | None,
    ) -> dict[str, Any]:
        now = utcnow()
        resolved = _inputs(definition, inputs, creator, space_defaults)
        scope = {
            "inputs": resolved,
            "trigger": trigger_payload,
            "run": {
                "id": None,
                "started_at": now.isoformat(),
                "automation_id": str(automation_id) if automation_id else None,
                "automation_name": definition.name,
                "automation_version": version,
                "trigger_type": "manual",
                "trigger_id": None,
                "space_id": str(space_id),
                "creator_id": creator,
                "attempt": 1,
            },
        }
        steps, hosts = await preview_steps(
            definition, scope, vocabulary.actions, vocabulary.capabilities, fixed_hosts, policy
        )
        schedules = [
            {
                "trigger_index": index,
                "cron": trigger.config.cron,
                "timezone": trigger.config.timezone,
                "next_fires": next_fires(trigger.config.cron, trigger.config.timezone, now),
            }
            for index, trigger in enumerate(definition.triggers)
            if isinstance(trigger, ScheduleTrigger) and trigger.enabled
        ]
        rendered = {step["step_id"]: step["config"] for step in steps if step.get("config") is not None}
        document = stored if stored is not None else definition.to_document()
        return {
            "inputs": resolved,
            "steps": steps,
            "external_hosts": hosts,
            "cost": self._cost(definition, limits, history, now, vocabulary, rendered),
            "caps": effective_caps(definition.execution, limits.caps).as_dict(),
            "warnings": [problem.as_dict() for problem in http_grant_problems(document, stored=True)],
            "schedules": schedules,
        }

    def _cost(
        self,
        definition: AutomationDefinition,
        limits: DispatchLimits,
        history: float | None,
        now: datetime,
        vocabulary: Vocabulary,
        rendered: Mapping[str, Mapping[str, Any]],
    ) -> dict[str, Any]:
        estimate, basis = history, "recent_runs_average"
        if estimate is None:
            estimate = first_run_estimate(definition, limits.pricer, vocabulary.capabilities, rendered)
            basis = "llm_step_worst_case"
        if estimate is None:
            estimate, basis = 0.0, "no_llm_steps_priced"
        triggers = [trigger for trigger in definition.triggers if trigger.enabled]
        schedules = [trigger for trigger in triggers if isinstance(trigger, ScheduleTrigger)]
        runs: float | None = None
        if triggers and len(schedules) == len(triggers):
            counts = [fires_per_month(t.config.cron, t.config.timezone, now) for t in schedules]
            runs = None if any(c is None for c in counts) else sum(c for c in counts if c is not None)
        return {
            "per_run_usd": round(estimate, 6),
            "basis": basis,
            "runs_per_month": None if runs is None else round(runs),
            "per_month_usd": None if runs is None else round(estimate * runs, 4),
        }


preview_service = PreviewService()
