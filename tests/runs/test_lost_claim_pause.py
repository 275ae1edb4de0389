"""A claim that lost its run cannot ask for an approval or leave a pause behind, on the real database.

The two places a pause is written, the pending call and the paused attempt's end, are fenced by the
claim's attempt; a call asked about in between is withdrawn when the claim ends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import select, text, update

from app.definitions.automation import Step
from app.definitions.signals import CallId
from app.engine.claim_ports import ClaimLost, StepAt
from app.persistence.autocommit import AutocommitWrites
from app.persistence.models import ActionInvocation, Run, RunStep
from app.registry.ports import InvocationRecord
from app.services.governance.approvals import approval_service
from app.services.governance.invocations import invocation_service
from app.services.runs.journal import RunJournal
from tests.support.approvals import pending_call
from tests.support.factories import Factory
from tests.support.in_process import execute, in_process_runtime
from tests.support.runs import stored_run

PLAN: dict[str, Any] = {
    "schema_version": "1.0",
    "name": "One call",
    "plan": [{"step_id": "call", "action": "transform_data", "config": {"output": 1}}],
}


@pytest.fixture
async def claimed(app: Any, factory: Factory) -> AsyncIterator[tuple[Run, AutocommitWrites]]:
    """A run held by claim 1, and the claim's one-statement writes."""
    owner = await factory.owner()
    automation = await owner.create_automation(PLAN)
    run = await stored_run(app, owner, automation, "running", attempt=1, claimed_by="claim-1")
    async with AutocommitWrites.open(app.state.engine) as writes:
        yield run, writes


def _call(run: Run) -> InvocationRecord:
    return pending_call(CallId(str(run.id), "call", 1, 0).key, step_id="call", capability="http.request")


async def _take_over(app: Any, run: Run) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(Run).where(Run.id == run.id).values(attempt=2))


async def _calls(app: Any, run: Run) -> list[ActionInvocation]:
    async with app.state.sessionmaker() as session:
        statement = select(ActionInvocation).where(ActionInvocation.run_id == run.id)
        return list((await session.scalars(statement)).all())


async def _ask(app: Any, run: Run) -> str:
    async with app.state.sessionmaker() as session, session.begin():
        return await invocation_service.request_approval(session, run, _call(run))


def _step_at(index: int) -> StepAt:
    step = Step.model_validate(PLAN["plan"][index])
    return StepAt(step.step_id, index, step.step_id, step.action)


def _suspension(run: Run) -> dict[str, Any]:
    call = CallId(str(run.id), "call", 1, 0)
    return {"reason": "approval_required", "capability": "http.request", "call": call.as_dict()}


async def test_the_claim_that_holds_the_run_asks_and_a_lost_one_cannot(
    app: Any, claimed: tuple[Run, AutocommitWrites]
) -> None:
    run, _writes = claimed
    assert await _ask(app, run)
    assert [c.status for c in await _calls(app, run)] == ["pending"]

    await _take_over(app, run)
    with pytest.raises(ClaimLost):
        await _ask(app, run)
    assert [c.status for c in await _calls(app, run)] == ["pending"], "nothing more was asked"


async def _begun(claimed: tuple[Run, AutocommitWrites]) -> tuple[Run, RunJournal, Any]:
    """Claim 1's journal with the step's first attempt begun: (run, journal, record id)."""
    run, writes = claimed
    journal = RunJournal(writes.write, run.id, 1)
    return run, journal, await journal.begin_step("plan", _step_at(0), 1)


async def test_a_pause_is_written_while_the_claim_holds_the_run(
    app: Any, claimed: tuple[Run, AutocommitWrites]
) -> None:
    run, journal, record = await _begun(claimed)
    await journal.suspend_step(record, config={"output": 1}, suspension=_suspension(run))

    async with app.state.sessionmaker() as session:
        step = await session.get(RunStep, record)
    assert step is not None
    assert (step.status, step.suspension["call"]["index"]) == ("suspended", 0)
    assert journal.unheeded_calls == []


async def test_a_lost_claim_writes_no_pause_and_its_question_is_withdrawn(
    app: Any, claimed: tuple[Run, AutocommitWrites]
) -> None:
    run, journal, record = await _begun(claimed)
    await _ask(app, run)  # asked while the claim held the run
    await _take_over(app, run)  # lost before the pause was recorded

    with pytest.raises(ClaimLost):
        await journal.suspend_step(record, config={"output": 1}, suspension=_suspension(run))

    async with app.state.sessionmaker() as session:
        step = await session.get(RunStep, record)
    assert step is not None
    assert (step.status, step.suspension) == ("running", None), "no resume point for a later claim"
    assert journal.unheeded_calls == [_call(run).call_key]

    async with app.state.sessionmaker() as session, session.begin():
        assert await approval_service.withdraw(session, run.id, journal.unheeded_calls[0]) == 1
    [call] = await _calls(app, run)
    assert (call.status, (call.error or {}).get("code")) == ("expired", "approval_withdrawn")
    async with app.state.sessionmaker() as session, session.begin():
        assert await approval_service.withdraw(session, run.id, journal.unheeded_calls[0]) == 0, "once"


# Another claim takes the run the moment a question is asked: the pending call and the takeover commit
# together, so the asking claim finds the run lost when it goes to record its pause. A trigger of the
# test's own makes that interleaving certain; nothing of the service is replaced.
TAKE_OVER_ON_ASK = [
    """
    CREATE FUNCTION test_take_over_on_ask() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE runs SET attempt = attempt + 1 WHERE id = NEW.run_id;
        RETURN NEW;
    END $$
    """,
    """
    CREATE TRIGGER test_take_over_on_ask AFTER INSERT ON action_invocations
    FOR EACH ROW WHEN (NEW.status = 'pending') EXECUTE FUNCTION test_take_over_on_ask()
    """,
]
FORGET_TAKE_OVER = [
    "DROP TRIGGER IF EXISTS test_take_over_on_ask ON action_invocations",
    "DROP FUNCTION IF EXISTS test_take_over_on_ask()",
]


@pytest.fixture
async def taken_over_on_ask(app: Any) -> AsyncIterator[None]:
    async with app.state.engine.begin() as connection:
        for statement in TAKE_OVER_ON_ASK:
            await connection.execute(text(statement))
    try:
        yield
    finally:
        async with app.state.engine.begin() as connection:
            for statement in FORGET_TAKE_OVER:
                await connection.execute(text(statement))


async def test_a_claim_lost_between_asking_and_pausing_withdraws_its_question(
    app: Any, factory: Factory, taken_over_on_ask: None
) -> None:
    owner = await factory.owner()
    document = {
        "schema_version": "1.0",
        "name": "Asks, then loses the run",
        "plan": [
            {
                "step_id": "call",
                "action": "http_request",
                "config": {"method": "POST", "url": "https://hooks.example.test/never-sent"},
            }
        ],
    }
    automation = await owner.create_automation(document)
    modes = await owner.request(
        "PUT",
        owner.space_path(f"/automations/{automation['id']}/action-modes"),
        json={"modes": {"http.request": "require_approval"}},
    )
    assert modes.status_code == 200, modes.text
    run = await stored_run(app, owner, automation)

    assert await execute(in_process_runtime(app), run.id) == "lease_lost"

    [call] = await _calls(app, run)
    assert (call.status, call.denied_reason, (call.error or {}).get("code")) == (
        "expired",
        "expired",
        "approval_withdrawn",
    )
    async with app.state.sessionmaker() as session:
        steps = (await session.scalars(select(RunStep).where(RunStep.run_id == run.id))).all()
        current = await session.get(Run, run.id)
    assert [(step.status, step.suspension) for step in steps] == [("running", None)], "no resume point"
    assert current is not None
    assert (current.status, current.attempt) == ("running", 2), "the run is the other claim's"
