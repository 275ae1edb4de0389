"""A fire's plan, decided before anything is written: each guard and admission rule's outcome, whether
it is settled in memory or left to the fire's transaction, and the row and wake-up the plan gives."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi import FastAPI

from app.definitions.run_states import RunStatus
from app.errors import AppError, Conflict, ValidationFailed
from app.persistence.base import utcnow
from app.persistence.models import AutomationStatus
from app.services.runs.fire_plan import FirePlan, plan_fire
from app.services.runs.fire_request import FireRequest
from app.services.runs.limits import EXECUTE_TASK, DispatchLimits
from tests.support.factories import minimal_definition

SCHEMA = {
    "schema": {
        "type": "object",
        "required": ["city"],
        "properties": {"city": {"type": "string"}},
    }
}
LLM_STEP = {"step_id": "ask", "action": "llm_complete", "config": {"model": "gpt-4o-mini", "prompt": "hi"}}


@dataclass
class Automation:
    """The columns a fire reads of its automation, as a hot path selects them."""

    definition: dict[str, Any]
    status: AutomationStatus = AutomationStatus.active
    id: uuid.UUID = field(default_factory=uuid.uuid4)
    space_id: uuid.UUID = field(default_factory=uuid.uuid4)
    version: int = 1
    created_by: uuid.UUID | None = None


def _automation(**changes: Any) -> Automation:
    status = changes.pop("status", AutomationStatus.active)
    return Automation(definition=minimal_definition(**changes), status=status)


async def _plan(
    app: FastAPI, automation: Automation, request: FireRequest, limits: DispatchLimits | None = None
) -> FirePlan | AppError:
    # The session is never used: no input here defaults to a space's value, so nothing is asked.
    async with app.state.sessionmaker() as session:
        return await plan_fire(session, automation, request, limits or DispatchLimits(), utcnow())


async def _settled(app: FastAPI, automation: Automation, request: FireRequest, **limits: Any) -> FirePlan:
    plan = await _plan(app, automation, request, DispatchLimits(**limits))
    assert isinstance(plan, FirePlan)
    return plan


class TestGuardsAndInputs:
    async def test_an_archived_automation_is_refused_before_its_inputs_are_read(self, app: FastAPI) -> None:
        automation = _automation(status=AutomationStatus.archived, inputs=SCHEMA)
        refused = await _plan(app, automation, FireRequest(trigger_type="manual"))
        assert isinstance(refused, Conflict)
        assert refused.code == "automation_archived"

    async def test_a_trigger_fire_on_a_paused_automation_is_refused(self, app: FastAPI) -> None:
        refused = await _plan(
            app, _automation(status=AutomationStatus.paused), FireRequest(trigger_type="event")
        )
        assert isinstance(refused, Conflict)
        assert refused.code == "automation_paused"

    async def test_run_now_on_a_paused_automation_is_planned(self, app: FastAPI) -> None:
        plan = await _settled(
            app, _automation(status=AutomationStatus.paused), FireRequest(trigger_type="manual")
        )
        assert plan.verdict is not None
        assert plan.status is RunStatus.pending

    async def test_an_api_caller_s_bad_inputs_are_a_422_and_no_plan(self, app: FastAPI) -> None:
        refused = await _plan(app, _automation(inputs=SCHEMA), FireRequest(trigger_type="manual", inputs={}))
        assert isinstance(refused, ValidationFailed)
        assert refused.code == "invalid_inputs"


class TestAdmissionInMemory:
    async def test_nothing_objects_a_pending_run_with_its_wake_up(self, app: FastAPI) -> None:
        trigger_id = uuid.uuid4()
        plan = await _settled(app, _automation(), FireRequest(trigger_type="webhook", trigger_id=trigger_id))
        assert (plan.status, plan.outcome, plan.announces_end) == (RunStatus.pending, "created", False)
        row = plan.row()
        assert row.wake_up is not None
        assert row.wake_up.task == EXECUTE_TASK
        assert row.wake_up.queue == row.values["queue"]
        assert row.stamp is not None
        assert row.stamp.trigger_id == trigger_id
        assert row.values["enqueued_at"] is not None
        assert row.values["finished_at"] is None

    async def test_a_fire_the_caller_refuses_is_a_dropped_run_announced(self, app: FastAPI) -> None:
        request = FireRequest(trigger_type="event", refuse_reason="chain_depth_exceeded")
        plan = await _settled(app, _automation(), request)
        assert (plan.status, plan.outcome, plan.announces_end) == (RunStatus.dropped, "dropped", True)
        row = plan.row()
        assert row.wake_up is None, "a dropped run is never started"
        assert row.values["reason"] == "chain_depth_exceeded"
        assert row.values["finished_at"] is not None

    async def test_a_dry_run_that_is_dropped_announces_nothing(self, app: FastAPI) -> None:
        request = FireRequest(trigger_type="manual", refuse_reason="chain_depth_exceeded", mode="dry_run")
        plan = await _settled(app, _automation(), request)
        assert plan.status is RunStatus.dropped
        assert not plan.announces_end

    async def test_a_trigger_s_bad_inputs_are_a_dropped_run(self, app: FastAPI) -> None:
        request = FireRequest(trigger_type="schedule", refuse_bad_inputs=False)
        plan = await _settled(app, _automation(inputs=SCHEMA), request)
        assert plan.status is RunStatus.dropped
        assert plan.verdict is not None
        assert (plan.verdict.reason or "").startswith("invalid_inputs: ")


class TestLeftToTheTransaction:
    @pytest.mark.parametrize("policy", ["queue", "drop_if_running"])
    async def test_a_serial_policy_is_counted_under_the_lock(self, app: FastAPI, policy: str) -> None:
        plan = await _settled(
            app, _automation(execution={"concurrency": policy}), FireRequest(trigger_type="manual")
        )
        assert plan.serialise
        assert plan.verdict is None

    async def test_a_key_is_checked_under_the_lock(self, app: FastAPI) -> None:
        plan = await _settled(app, _automation(), FireRequest(trigger_type="manual", idempotency_key="k"))
        assert plan.serialise
        assert plan.verdict is None

    async def test_the_global_cap_counts_slots(self, app: FastAPI) -> None:
        plan = await _settled(app, _automation(), FireRequest(trigger_type="manual"), max_concurrent_runs=3)
        assert not plan.serialise
        assert plan.verdict is None

    async def test_an_automation_s_own_daily_cap_asks_the_ledger(self, app: FastAPI) -> None:
        automation = _automation(execution={"cost_cap_daily_usd": 1.0})
        plan = await _settled(app, automation, FireRequest(trigger_type="manual"))
        assert plan.verdict is None

    async def test_an_llm_step_is_checked_against_the_default_daily_cap(self, app: FastAPI) -> None:
        plan = await _settled(app, _automation(plan=[LLM_STEP]), FireRequest(trigger_type="manual"))
        assert plan.verdict is None

    async def test_a_plan_without_llm_steps_is_settled_in_memory(self, app: FastAPI) -> None:
        plan = await _settled(app, _automation(), FireRequest(trigger_type="schedule"))
        assert plan.verdict is not None
        assert plan.status is RunStatus.pending

    async def test_a_plan_without_a_verdict_gives_no_row(self, app: FastAPI) -> None:
        plan = await _settled(app, _automation(), FireRequest(trigger_type="manual", idempotency_key="k"))
        with pytest.raises(RuntimeError):
            plan.row()
