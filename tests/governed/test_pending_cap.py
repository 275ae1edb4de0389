"""The pending caps on the real database: the eleventh waiting call of a run is refused and audited."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from sqlalchemy import select

from app.definitions.signals import StepError
from app.persistence.models import ActionInvocation, Run
from app.persistence.transaction import transaction
from app.registry.ports import InvocationRecord
from app.services.invocations import MAX_PENDING_PER_RUN
from app.worker.ports import RunInvocations
from tests.support.factories import Factory
from tests.support.runs import definition


class Worker:
    """What the invocation port uses of a worker: its unit of work."""

    def __init__(self, app: Any) -> None:
        self.app = app

    @asynccontextmanager
    async def unit_of_work(self) -> AsyncIterator[Any]:
        async with transaction(self.app.state.sessionmaker, lambda job: None) as session:
            yield session


def record(index: int) -> InvocationRecord:
    return InvocationRecord(
        call_key=f"run/step/1/{index}",
        step_id="step",
        capability="crm.note",
        tier="native",
        risk="write",
        destructive=False,
        chosen_by="agent",
        mode="require_approval",
        mode_source="inferred_default",
        params={"n": index},
        status="pending",
    )


async def test_the_run_cap_refuses_the_next_call_and_keeps_it_denied(app: Any, factory: Factory) -> None:
    owner = await factory.owner()
    automation = await owner.create_automation(
        definition({"step_id": "a", "action": "transform_data", "config": {"output": 1}})
    )
    run = Run(
        id=uuid.uuid4(),
        space_id=uuid.UUID(owner.space_id),
        automation_id=uuid.UUID(automation["id"]),
        automation_version=1,
        definition=automation["definition"],
        status="running",
        queue="runs.fast",
        trigger_type="manual",
        trigger_payload={},
        inputs={},
        attempt=1,
    )
    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        session.add(run)
    port = RunInvocations(Worker(app), run)  # type: ignore[arg-type]
    for index in range(MAX_PENDING_PER_RUN):
        await port.request_approval(record(index))
    with pytest.raises(StepError) as refused:
        await port.request_approval(record(MAX_PENDING_PER_RUN))
    assert (refused.value.code, refused.value.retryable) == ("pending_cap_reached", False)
    async with app.state.sessionmaker() as session:
        rows = list(
            (await session.scalars(select(ActionInvocation).where(ActionInvocation.run_id == run.id))).all()
        )
    assert sorted(r.status for r in rows) == ["denied"] + ["pending"] * MAX_PENDING_PER_RUN
    denied = next(r for r in rows if r.status == "denied")
    assert (denied.denied_reason, denied.params) == ("pending_cap", {"n": MAX_PENDING_PER_RUN})
