"""A suspended call end to end in the run service: persisted, lease released, and resumed as the same call.

The run service is driven in-process (as a worker task drives it) on the real database, with a
pipeline that holds one extra rule: the suspension a later permission rule will raise.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from app.definitions.signals import Suspend
from app.engine.capabilities import CapabilityCall, NamedRule, Proceed
from app.integrations.http import GuardedHttp
from app.persistence.autocommit import AutocommitWrites, claim_writes
from app.persistence.models import Run, RunStep
from app.persistence.transaction import transaction
from app.registry.llm_ports import LlmReply
from app.registry.ports import Ports
from app.security.egress import EgressAllowList
from app.services.runs.execution import ExecutionDeps, ExecutionSettings, execution_service
from tests.support.factories import Factory
from tests.support.loopback import Loopback
from tests.support.runs import stored_run


@pytest.fixture(scope="module")
def loopback() -> Iterator[Loopback]:
    server = Loopback().start()
    yield server
    server.stop()


class NotReached:
    """Ports this run must never use (it has no notification or LLM step)."""

    async def send(self, *, level: str, title: str, body: str) -> str:
        raise AssertionError("no notification expected")

    async def spent(self) -> tuple[float, int]:
        raise AssertionError("no LLM call expected")

    async def spent_today(self) -> float:
        raise AssertionError("no LLM call expected")

    async def record(self, *, step_id: str, reply: LlmReply) -> None:
        raise AssertionError("no LLM call expected")


async def require_decision(call: CapabilityCall, proceed: Proceed) -> Any:
    raise Suspend("approval_required", call=call.id, capability_id=call.capability_id)


def deps(app: Any, *, suspend: bool) -> ExecutionDeps:
    runtime = app.state.runtime
    pipeline = runtime.pipeline
    if suspend:
        pipeline = pipeline.with_rule(NamedRule("require_decision", require_decision), before="model_allowed")
    not_reached = NotReached()

    def ports(run: Run, claim: AutocommitWrites) -> Ports:
        return Ports(
            http=GuardedHttp(EgressAllowList.parse("127.0.0.1/32")),
            notifications=not_reached,
            llm=runtime.llm,
            ledger=not_reached,
        )

    return ExecutionDeps(pipeline=pipeline, actions=runtime.actions, ports=ports)


async def test_a_suspended_call_is_persisted_and_resumed_as_the_same_call(
    app: Any, factory: Factory, loopback: Loopback
) -> None:
    owner = await factory.owner()
    name = f"suspend-{uuid.uuid4().hex[:6]}"
    document = {
        "schema_version": "1.0",
        "name": "Suspends",
        "plan": [
            {"step_id": "first", "action": "transform_data", "config": {"output": 1}, "output_as": "one"},
            {
                "step_id": "call",
                "action": "http_request",
                "config": {"method": "POST", "url": f"{loopback.url}/x/{name}"},
            },
        ],
    }
    automation = await owner.create_automation(document)

    def uow() -> Any:
        return transaction(app.state.sessionmaker, app.state.send_job)

    def writes() -> Any:
        return claim_writes(app.state.engine, app.state.send_job)

    run_id = (await stored_run(app, owner, automation)).id
    settings = ExecutionSettings(worker="in-process", lease=timedelta(seconds=30))

    assert await execution_service.execute(writes, run_id, settings, deps(app, suspend=True)) == "suspended"
    async with app.state.sessionmaker() as session:
        run = await session.get(Run, run_id)
        steps = list((await session.scalars(select(RunStep).where(RunStep.run_id == run_id))).all())
    assert run is not None
    assert run.status == "awaiting_approval"
    assert (run.claimed_by, run.lease_expires_at) == (None, None)
    suspended = next(step for step in steps if step.step_id == "call")
    assert suspended.status == "suspended"
    assert suspended.suspension == {
        "reason": "approval_required",
        "capability": "http.request",
        "call": {"run_id": str(run_id), "step_id": "call", "attempt": 1, "index": 0},
    }
    assert loopback.hits[name] == 0
    # Without a decision nobody claims the run again: it holds no lease to expire and is not pending.
    assert await execution_service.execute(writes, run_id, settings, deps(app, suspend=True)) == "not_claimed"

    # A decision puts the run back to pending (what the approval path will do); the same attempt runs.
    async with uow() as session:
        await session.execute(update(Run).where(Run.id == run_id).values(status="pending"))
    assert await execution_service.execute(writes, run_id, settings, deps(app, suspend=False)) == "succeeded"
    async with app.state.sessionmaker() as session:
        steps = list((await session.scalars(select(RunStep).where(RunStep.run_id == run_id))).all())
    # The suspended attempt's record continues (it keeps why it paused); the done step did not run again.
    assert sorted((s.step_id, s.attempt, s.status) for s in steps) == [
        ("call", 1, "succeeded"),
        ("first", 1, "succeeded"),
    ]
    assert next(s for s in steps if s.step_id == "call").suspension is not None
    assert loopback.hits[name] == 1
