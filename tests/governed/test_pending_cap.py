"""The pending caps on the real database: the eleventh waiting call of a run, and the 1,001st of a space,
is refused and audited."""

from __future__ import annotations

import uuid
from dataclasses import asdict
from typing import Any

import pytest
from sqlalchemy import insert, select

from app.definitions.signals import StepError
from app.persistence.autocommit import claim_writes
from app.persistence.models import ActionInvocation, Run
from app.persistence.transaction import transaction
from app.registry.ports import InvocationRecord
from app.services.governance.invocations import MAX_PENDING_PER_RUN, MAX_PENDING_PER_SPACE
from app.worker.ports import RunInvocations
from tests.support.approvals import pending_call
from tests.support.factories import Factory
from tests.support.runs import definition, stored_run


class Port:
    """The run's invocation port as a claim uses it, each call on a claim connection of its own."""

    def __init__(self, app: Any, run: Run) -> None:
        self.app = app
        self.run = run

    async def request_approval(self, call: InvocationRecord) -> str:
        async with claim_writes(self.app.state.engine, lambda job: None) as writes:
            return await RunInvocations(writes, self.run).request_approval(call)


def record(index: int) -> InvocationRecord:
    return pending_call(f"run/step/1/{index}", params={"n": index})


async def running(app: Any, owner: Any) -> Run:
    """A running run of a fresh automation of the owner's space, stored."""
    automation = await owner.create_automation(
        definition({"step_id": "a", "action": "transform_data", "config": {"output": 1}})
    )
    return await stored_run(app, owner, automation, "running", attempt=1)


def port_for(app: Any, run: Run) -> Port:
    return Port(app, run)


async def test_the_run_cap_refuses_the_next_call_and_keeps_it_denied(app: Any, factory: Factory) -> None:
    owner = await factory.owner()
    run = await running(app, owner)
    port = port_for(app, run)
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


async def waiting_calls(app: Any, run: Run, count: int) -> None:
    """`count` calls of `run` waiting for approval, written in one statement."""
    rows = [
        {
            "id": uuid.uuid4(),
            "space_id": run.space_id,
            "automation_id": run.automation_id,
            "run_id": run.id,
            **asdict(pending_call(f"{run.id}/step/1/{index}", params={"n": index})),
        }
        for index in range(count)
    ]
    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        await session.execute(insert(ActionInvocation), rows)


async def test_the_space_cap_refuses_a_call_of_any_run_and_leaves_other_spaces_alone(
    app: Any, factory: Factory
) -> None:
    owner = await factory.owner()
    per_run = MAX_PENDING_PER_RUN - 1  # under the run cap, so only the space cap can refuse
    runs = MAX_PENDING_PER_SPACE // per_run + 1
    for _ in range(runs - 1):
        await waiting_calls(app, await running(app, owner), per_run)
    last = await running(app, owner)
    left = MAX_PENDING_PER_SPACE - (runs - 1) * per_run - 1
    if left:
        await waiting_calls(app, last, left)
    await port_for(app, last).request_approval(record(9_000))  # the space's 1,000th waiting call is asked
    fresh = await running(app, owner)
    with pytest.raises(StepError) as refused:
        await port_for(app, fresh).request_approval(record(9_001))
    assert (refused.value.code, refused.value.retryable) == ("pending_cap_reached", False)
    async with app.state.sessionmaker() as session:
        statuses = list(
            (
                await session.scalars(
                    select(ActionInvocation.status).where(ActionInvocation.run_id == fresh.id)
                )
            ).all()
        )
    assert statuses == ["denied"], "the refused call is audited, not left waiting"

    other = await factory.owner()
    await port_for(app, await running(app, other)).request_approval(record(1))
