"""Finishing a claim on the real database: one conditional update; a lost claim writes and sends nothing.

Each test runs both ways a claim can be finished: `finish_claim` in a caller's transaction, and on the
worker's claim connection, where the writer makes the common finish one autocommit statement (the plan
written alone) and falls back to a transaction when a consequence needs one.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from app import jobs
from app.definitions import run_states
from app.definitions.run_states import RunStatus, TransitionRefused
from app.engine.claim_ports import Outcome
from app.jobs import Job
from app.persistence.autocommit import AutocommitWrites
from app.persistence.base import utcnow
from app.persistence.models import DomainEvent, Run, WebhookDelivery
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.repositories.runs import RunRepository
from app.persistence.transaction import transaction
from app.persistence.writer import plan_writer
from app.services.runs.dispatch import dispatcher
from app.services.runs.finishing import claim_end, finish_claim
from app.services.runs.fire_request import FireRequest
from app.services.runs.limits import DispatchLimits
from app.services.runs.move_rules import RUN_POLICY
from app.services.runs.moves import Move, Rule
from app.services.runs.transition import plan_of
from tests.support.factories import Caller, Factory
from tests.support.receivers import Receivers
from tests.support.runs import RUN_EVENT_LISTENER

NEEDS_TRANSACTION = "needs_transaction"
# Long enough that recovery never takes the run back while the test holds it.
LEASE = timedelta(hours=1)


async def _claimed(app: Any, factory: Factory, owner: Caller | None = None) -> Run:
    """A run claimed by this test: fired without a wake-up, so no worker competes for it."""
    owner = owner or await factory.owner()
    automation = await owner.create_automation()
    async with transaction(app.state.sessionmaker, lambda job: None) as session:
        row = await AutomationRepository(session).get_by_id(uuid.UUID(automation["id"]))
        assert row is not None
        fired = await dispatcher.fire(session, (row, FireRequest(trigger_type="manual")), DispatchLimits())
    async with transaction(app.state.sessionmaker, lambda job: None) as session:
        run = await RunRepository(session).claim(fired.run.id, "test-worker", LEASE, utcnow())
    assert run is not None
    assert run.status is RunStatus.running
    return run


async def _events(app: Any, run: Run) -> list[DomainEvent]:
    async with app.state.sessionmaker() as session:
        statement = select(DomainEvent).where(DomainEvent.source_id == str(run.automation_id))
        return list((await session.scalars(statement)).all())


async def _finish(
    app: Any, run: Run, outcome: Outcome, sent: list[Job], way: str, limits: DispatchLimits | None = None
) -> Run | None:
    limits = limits or DispatchLimits()
    if way == "transaction":
        async with transaction(app.state.sessionmaker, sent.append) as session:
            return await finish_claim(session, run, outcome, limits, utcnow())
    with jobs.job_scope() as queued:
        async with AutocommitWrites.open(app.state.engine) as writes:
            finished = await finish_claim(writes, run, outcome, limits, utcnow())
        sent.extend(queued)
    return finished


WAYS = pytest.mark.parametrize("way", ["transaction", "worker"])


@WAYS
async def test_a_finished_claim_is_one_update_with_its_event(app: Any, factory: Factory, way: str) -> None:
    run = await _claimed(app, factory)
    sent: list[Job] = []
    finished = await _finish(app, run, Outcome("succeeded", output={"ok": True}), sent, way)
    assert finished is not None
    assert finished.status is RunStatus.succeeded
    assert finished.output == {"ok": True}
    assert finished.finished_at is not None
    assert finished.claimed_by is None
    (event,) = await _events(app, run)
    assert event.event_type == "automation.run.succeeded"
    # No event trigger of the space listens: the event is recorded as dispatched to nobody, and no
    # dispatcher is woken (tests/runs/test_run_journal.py covers one that listens).
    assert (event.consumed_by, event.dispatched_at is not None) == ([], True)
    assert sent == []


@WAYS
async def test_a_lost_claim_records_nothing_and_sends_nothing(app: Any, factory: Factory, way: str) -> None:
    run = await _claimed(app, factory)
    stale = Run(id=run.id, attempt=run.attempt - 1, queue=run.queue, status=RunStatus.running)
    sent: list[Job] = []
    for outcome in (Outcome("succeeded"), Outcome("retry_later", retry_in_seconds=30)):
        assert await _finish(app, stale, outcome, sent, way) is None
    assert sent == []
    assert await _events(app, run) == []
    async with app.state.sessionmaker() as session:
        current = await session.get(Run, run.id)
    assert current is not None
    assert (current.status, current.finished_at) == (RunStatus.running, None)


@WAYS
async def test_a_retry_goes_back_to_pending_with_a_delayed_wake_up(
    app: Any, factory: Factory, way: str
) -> None:
    run = await _claimed(app, factory)
    sent: list[Job] = []
    finished = await _finish(app, run, Outcome("retry_later", retry_in_seconds=30), sent, way)
    assert finished is not None
    assert finished.status is RunStatus.pending
    assert finished.retry_at is not None
    assert finished.finished_at is None
    assert [(job.name, job.args, job.countdown) for job in sent] == [("runs.execute", (str(run.id),), 30)]
    assert await _events(app, run) == []


@pytest.mark.parametrize("alone", [False, True], ids=["in_a_transaction", "alone"])
async def test_finish_refuses_an_edge_that_does_not_leave_running(
    app: Any, factory: Factory, alone: bool
) -> None:
    run = await _claimed(app, factory)
    move = Move(run, run_states.STOP, utcnow(), DispatchLimits(), held=True, outcome=Outcome("cancelled"))
    plan = plan_of(move)
    plan.edge = run_states.CANCEL
    async with app.state.sessionmaker() as session:
        with pytest.raises(TransitionRefused, match="the cancel transition cannot take a run from running"):
            await plan_writer.statement(session, plan, alone=alone)


def _comparable(event: DomainEvent, run: Run) -> tuple[Any, ...]:
    ids = {str(run.id): "<run>", str(run.automation_id): "<automation>"}
    payload = {
        **event.payload,
        **{key: ids.get(event.payload[key], "?") for key in ("run_id", "automation_id")},
    }
    return (event.event_type, payload, event.chain_depth, event.consumed_by, event.dispatched_at is None)


@pytest.mark.parametrize(
    "outcome",
    [
        Outcome("succeeded", output={"n": 42, "token": "sk-live-abcdefghijklmnopqrstuvwx"}),
        Outcome("failed", error={"code": "step_failed", "message": "boom"}),
        Outcome("timed_out", error={"code": "run_timeout", "message": "too slow"}),
        Outcome("cancelled"),
    ],
    ids=lambda outcome: outcome.status,
)
async def test_both_ways_write_the_same_run_and_event(app: Any, factory: Factory, outcome: Outcome) -> None:
    # The one-statement finish builds the event's payload in SQL: it must match the one built in Python.
    rows = []
    for way in ("transaction", "worker"):
        run = await _claimed(app, factory)
        finished = await _finish(app, run, outcome, [], way)
        assert finished is not None
        (event,) = await _events(app, run)
        rows.append(
            (finished.status, finished.output, finished.error, finished.reason, _comparable(event, run))
        )
    assert rows[0] == rows[1]
    assert rows[0][0] is RunStatus(outcome.status)


async def test_a_listening_event_trigger_gets_the_event_and_a_dispatcher(app: Any, factory: Factory) -> None:
    owner = await factory.owner()
    await owner.create_automation(RUN_EVENT_LISTENER)
    run = await _claimed(app, factory, owner)
    sent: list[Job] = []
    finished = await _finish(app, run, Outcome("succeeded"), sent, "worker")
    assert finished is not None
    (event,) = await _events(app, run)
    assert event.dispatched_at is None
    assert [(job.name, job.args) for job in sent] == [("events.dispatch", (str(event.id),))]


async def _owner_with_endpoint(factory: Factory, receivers: Receivers) -> Caller:
    """A space whose webhook endpoint listens for every run's terminal event."""
    owner = await factory.owner()
    response = await owner.request(
        "POST",
        owner.space_path("/webhook-endpoints"),
        json={"url": receivers.url("ok/a"), "events": ["automation.run.*"]},
    )
    assert response.status_code == 201, response.text
    return owner


async def _alone(
    app: Any, run: Run, outcome: Outcome, limits: DispatchLimits, policy: Any = RUN_POLICY
) -> Any:
    """The finish's plan as one statement alone, on a connection of its own, committed: the written run,
    or NEEDS_TRANSACTION when the plan may not be written alone or the statement refused."""
    move = claim_end(run, outcome, limits, utcnow())
    assert move is not None
    plan = plan_of(move, policy)
    if not plan.alone:
        return NEEDS_TRANSACTION
    async with app.state.sessionmaker() as session:
        written = await plan_writer.statement(session, plan, alone=True)
        await session.commit()
    return written.run if written is not None else NEEDS_TRANSACTION


async def _still_running(app: Any, run: Run) -> None:
    async with app.state.sessionmaker() as session:
        current = await session.get(Run, run.id)
    assert current is not None
    assert (current.status, current.finished_at) == (RunStatus.running, None)
    assert await _events(app, run) == []


async def test_a_finish_with_a_listening_endpoint_takes_the_transaction(
    app: Any, factory: Factory, receivers: Receivers
) -> None:
    owner = await _owner_with_endpoint(factory, receivers)
    run = await _claimed(app, factory, owner)
    alone = await _alone(app, run, Outcome("succeeded"), DispatchLimits())
    assert alone is NEEDS_TRANSACTION
    await _still_running(app, run)

    finished = await _finish(app, run, Outcome("succeeded"), [], "worker")
    assert finished is not None
    assert finished.status is RunStatus.succeeded
    async with app.state.sessionmaker() as session:
        owed = (await session.scalars(select(WebhookDelivery).where(WebhookDelivery.run_id == run.id))).all()
    assert [delivery.status for delivery in owed] == ["pending"]
    assert len(await _events(app, run)) == 1


async def test_a_dry_run_owes_no_delivery_and_finishes_alone(
    app: Any, factory: Factory, receivers: Receivers
) -> None:
    owner = await _owner_with_endpoint(factory, receivers)
    run = await _claimed(app, factory, owner)
    callback = "https://hooks.example.test/done"
    async with app.state.sessionmaker() as session:
        await session.execute(
            update(Run).where(Run.id == run.id).values(mode="dry_run", callback_url=callback)
        )
        await session.commit()
    run.mode, run.callback_url = "dry_run", callback
    alone = await _alone(app, run, Outcome("succeeded"), DispatchLimits())
    assert isinstance(alone, Run)
    assert alone.status is RunStatus.succeeded
    assert await _events(app, run) == [], "a dry run announces nothing"
    async with app.state.sessionmaker() as session:
        owed = (await session.scalars(select(WebhookDelivery).where(WebhookDelivery.run_id == run.id))).all()
    assert owed == []


async def test_a_finish_that_may_promote_takes_the_transaction(app: Any, factory: Factory) -> None:
    owner = await factory.owner()
    run = await _claimed(app, factory, owner)
    waiting = await _claimed(app, factory, owner)
    async with app.state.sessionmaker() as session:
        await session.execute(
            update(Run).where(Run.id == waiting.id).values(status=RunStatus.queued, claimed_by=None)
        )
        await session.commit()
    for limits in (DispatchLimits(), DispatchLimits(max_concurrent_runs=5)):
        assert await _alone(app, run, Outcome("succeeded"), limits) is NEEDS_TRANSACTION
        await _still_running(app, run)
        async with app.state.sessionmaker() as session:
            await session.execute(update(Run).where(Run.id == waiting.id).values(status=RunStatus.succeeded))
            await session.commit()

    sent: list[Job] = []
    finished = await _finish(
        app, run, Outcome("succeeded"), sent, "worker", DispatchLimits(max_concurrent_runs=5)
    )
    assert finished is not None
    assert finished.status is RunStatus.succeeded


async def test_a_finish_owing_a_callback_takes_the_transaction(app: Any, factory: Factory) -> None:
    run = await _claimed(app, factory)
    async with app.state.sessionmaker() as session:
        await session.execute(
            update(Run).where(Run.id == run.id).values(callback_url="https://hooks.example.test/done")
        )
        await session.commit()
    run.callback_url = "https://hooks.example.test/done"
    failed = Outcome("failed", error={"code": "x"})
    assert await _alone(app, run, failed, DispatchLimits()) is NEEDS_TRANSACTION
    await _still_running(app, run)

    finished = await _finish(app, run, failed, [], "worker")
    assert finished is not None
    async with app.state.sessionmaker() as session:
        owed = (await session.scalars(select(WebhookDelivery).where(WebhookDelivery.run_id == run.id))).all()
    assert [delivery.callback_url for delivery in owed] == ["https://hooks.example.test/done"]


class _WritesAfter(Rule):
    """A rule whose consequence writes: the plan may not be written alone."""

    name = "writes_after"
    applies_to = run_states.TERMINAL

    def plan(self, move: Move, plan: Any) -> None:
        plan.alone = False


async def test_a_rule_that_cannot_follow_alone_keeps_the_transaction(app: Any, factory: Factory) -> None:
    run = await _claimed(app, factory)
    policy = (*RUN_POLICY, _WritesAfter())
    assert await _alone(app, run, Outcome("succeeded"), DispatchLimits(), policy) is NEEDS_TRANSACTION
    await _still_running(app, run)
