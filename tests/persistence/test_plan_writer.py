"""The plan writer on the real database: each plan shape becomes the statements it should, no more.

Round trips are counted with the engine's events (statements, and BEGIN/COMMIT/ROLLBACK where the
driver sends them: not on an autocommit connection). The consequences are left out (`follow` does
nothing) so only the writer's own statements are counted.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select, update

from app import jobs
from app.definitions import run_states
from app.definitions.run_states import RunStatus
from app.engine.claim_ports import Outcome
from app.persistence.autocommit import AutocommitWrites
from app.persistence.base import utcnow
from app.persistence.models import DomainEvent, Run, RunStep
from app.persistence.repositories.run_journal import StepEnd
from app.persistence.types import AsyncSession
from app.persistence.writer import RunPlan, Written, plan_writer
from app.services.runs.finishing import claim_end
from app.services.runs.limits import DispatchLimits
from app.services.runs.moves import Move
from app.services.runs.transition import plan_of
from tests.support.factories import Factory
from tests.support.held_runs import claim, fire, queueing_automation
from tests.support.round_trips import counted


async def _nothing(session: AsyncSession, written: Written) -> None:
    return None


async def _running(app: Any, factory: Factory) -> Run:
    owner = await factory.owner()
    automation = await owner.create_automation()
    return await claim(app, (await fire(app, automation["id"])).id)


def _finish_plan(run: Run, outcome: Outcome | None = None) -> RunPlan:
    move = claim_end(run, outcome or Outcome("succeeded", output={"ok": True}), DispatchLimits(), utcnow())
    assert move is not None
    return plan_of(move)


async def _row(app: Any, run_id: uuid.UUID) -> Run:
    async with app.state.sessionmaker() as session:
        row = await session.get(Run, run_id)
    assert row is not None
    return row


async def _events(app: Any, run: Run) -> list[DomainEvent]:
    async with app.state.sessionmaker() as session:
        statement = select(DomainEvent).where(DomainEvent.source_id == str(run.automation_id))
        return list((await session.scalars(statement)).all())


async def _set(app: Any, run_id: uuid.UUID, **values: Any) -> None:
    async with app.state.sessionmaker() as session:
        await session.execute(update(Run).where(Run.id == run_id).values(**values))
        await session.commit()


async def test_a_plan_alone_on_the_claim_connection_is_one_statement(app: Any, factory: Factory) -> None:
    run = await _running(app, factory)
    with jobs.job_scope(), counted(app) as sent:
        async with AutocommitWrites.open(app.state.engine) as writes:
            written = await plan_writer.on_claim(writes, _finish_plan(run), _nothing)
    assert written is not None
    assert written.alone
    assert len(sent) == 1, sent
    assert (await _row(app, run.id)).status is RunStatus.succeeded
    (event,) = await _events(app, run)
    assert event.payload == {
        "automation_id": str(run.automation_id),
        "run_id": str(run.id),
        "status": "succeeded",
        "output": {"ok": True},
        "error": None,
    }


async def test_a_refused_alone_statement_is_written_again_in_one_transaction(
    app: Any, factory: Factory
) -> None:
    owner = await factory.owner()
    # The claimed run holds the queued one back from any promotion but the plan's own.
    automation = await queueing_automation(owner)
    run = await claim(app, (await fire(app, automation["id"])).id)
    waiting = await fire(app, automation["id"])
    assert waiting.status is RunStatus.queued
    with jobs.job_scope(), counted(app) as sent:
        async with AutocommitWrites.open(app.state.engine) as writes:
            written = await plan_writer.on_claim(writes, _finish_plan(run), _nothing)
    assert written is not None
    assert (written.alone, written.queued_waiting) == (False, True)
    # The refused statement, then the plan in a transaction: a queued run may need promoting with it.
    assert [text if text in ("BEGIN", "COMMIT") else "plan" for text in sent] == [
        "plan",
        "BEGIN",
        "plan",
        "COMMIT",
    ]
    assert len(await _events(app, run)) == 1


async def test_a_plan_that_needs_a_transaction_does_not_try_alone(app: Any, factory: Factory) -> None:
    run = await _running(app, factory)
    plan = _finish_plan(run)
    plan.alone = False
    with jobs.job_scope(), counted(app) as sent:
        async with AutocommitWrites.open(app.state.engine) as writes:
            written = await plan_writer.on_claim(writes, plan, _nothing)
    assert written is not None
    assert [text if text in ("BEGIN", "COMMIT") else "plan" for text in sent] == ["BEGIN", "plan", "COMMIT"]


async def test_in_a_callers_transaction_a_plan_is_one_statement(app: Any, factory: Factory) -> None:
    run = await _running(app, factory)
    with counted(app) as sent:
        async with app.state.sessionmaker() as session:
            written = await plan_writer.in_transaction(session, _finish_plan(run), _nothing)
            await session.commit()
    assert written is not None
    assert [text if text in ("BEGIN", "COMMIT") else "plan" for text in sent] == ["BEGIN", "plan", "COMMIT"]


async def test_a_lost_claim_writes_only_its_step_end(app: Any, factory: Factory) -> None:
    run = await _running(app, factory)
    record_id = uuid.uuid4()
    async with app.state.sessionmaker() as session:
        session.add(
            RunStep(
                id=record_id,
                run_id=run.id,
                phase="plan",
                step_index=0,
                step_id="s",
                path="s",
                action="transform_data",
                attempt=1,
                status="running",
                started_at=utcnow(),
            )
        )
        await session.commit()
    stale = Run(
        id=run.id,
        space_id=run.space_id,
        automation_id=run.automation_id,
        mode=run.mode,
        status=RunStatus.running,
        attempt=run.attempt - 1,
        chain_depth=0,
    )
    move = claim_end(stale, Outcome("succeeded"), DispatchLimits(), utcnow())
    assert move is not None
    move.step_end = StepEnd(record_id, {"status": "succeeded", "finished_at": utcnow(), "duration_ms": 5})
    with jobs.job_scope(), counted(app) as sent:
        async with AutocommitWrites.open(app.state.engine) as writes:
            written = await plan_writer.on_claim(writes, plan_of(move), _nothing)
    assert written is None
    assert (await _row(app, run.id)).status is RunStatus.running
    assert await _events(app, run) == []
    async with app.state.sessionmaker() as session:
        step = await session.get(RunStep, record_id)
    assert step is not None
    assert step.status == "succeeded", "the claim's own record is written even when the claim was lost"
    # Alone refused (lost), then the transaction finds it lost too; the step end is not written twice.
    assert sum(1 for text in sent if "run_steps" in text) == 1


async def test_an_expiry_fails_the_run_and_its_paused_steps_in_one_statement(
    app: Any, factory: Factory
) -> None:
    run = await _running(app, factory)
    record_id = uuid.uuid4()
    async with app.state.sessionmaker() as session:
        session.add(
            RunStep(
                id=record_id,
                run_id=run.id,
                phase="plan",
                step_index=0,
                step_id="ask",
                path="ask",
                action="http_request",
                attempt=1,
                status="suspended",
                started_at=utcnow(),
            )
        )
        await session.commit()
    await _set(app, run.id, status=RunStatus.awaiting_approval, claimed_by=None, lease_expires_at=None)
    run.status = RunStatus.awaiting_approval
    error = {"code": "approval_expired", "message": "nobody decided on http.request in time"}
    move = Move(
        run,
        run_states.FAIL,
        utcnow(),
        DispatchLimits(),
        sources=frozenset({RunStatus.awaiting_approval}),
        error=error,
        failed_step_id="ask",
        reason="approval expired",
    )
    with counted(app) as sent:
        async with app.state.sessionmaker() as session:
            written = await plan_writer.in_transaction(session, plan_of(move), _nothing)
            await session.commit()
    assert written is not None
    assert [text if text in ("BEGIN", "COMMIT") else "plan" for text in sent] == ["BEGIN", "plan", "COMMIT"]
    row = await _row(app, run.id)
    assert (row.status, row.failed_step_id, row.error, row.reason) == (
        RunStatus.failed,
        "ask",
        error,
        "approval expired",
    )
    async with app.state.sessionmaker() as session:
        step = await session.get(RunStep, record_id)
    assert step is not None
    assert (step.status, step.error, step.finished_at is not None) == ("failed", error, True)
    (event,) = await _events(app, run)
    assert event.payload["status"] == "failed"
    assert event.payload["error"] == error


async def test_a_plan_from_a_status_it_does_not_hold_takes_nothing(app: Any, factory: Factory) -> None:
    run = await _running(app, factory)
    move = Move(run, run_states.CANCEL, utcnow(), DispatchLimits(), sources=frozenset({RunStatus.pending}))
    run.status = RunStatus.pending
    async with app.state.sessionmaker() as session:
        written = await plan_writer.in_transaction(session, plan_of(move), _nothing)
        await session.commit()
    assert written is None
    assert (await _row(app, run.id)).status is RunStatus.running
