"""Finishing a claim on the real database: one conditional update; a lost claim writes and sends nothing."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from app.definitions import run_states
from app.definitions.run_states import RunStatus, TransitionRefused
from app.engine.executor import Outcome
from app.jobs import Job
from app.persistence.base import utcnow
from app.persistence.models import DomainEvent, Run
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.repositories.runs import RunRepository
from app.persistence.transaction import transaction
from app.services.dispatch import DispatchLimits, FireRequest, dispatcher
from app.services.finishing import finish_claim
from tests.support.factories import Factory

# Long enough that recovery never takes the run back while the test holds it.
LEASE = timedelta(hours=1)


async def _claimed(app: Any, factory: Factory) -> Run:
    """A run claimed by this test: fired without a wake-up, so no worker competes for it."""
    owner = await factory.owner()
    automation = await owner.create_automation()
    async with transaction(app.state.sessionmaker, lambda job: None) as session:
        row = await AutomationRepository(session).get_by_id(uuid.UUID(automation["id"]))
        assert row is not None
        fired = await dispatcher.fire(session, row, FireRequest(trigger_type="manual"), DispatchLimits())
    async with transaction(app.state.sessionmaker, lambda job: None) as session:
        run = await RunRepository(session).claim(fired.run.id, "test-worker", LEASE, utcnow())
    assert run is not None
    assert run.status is RunStatus.running
    return run


async def _events(app: Any, run: Run) -> list[DomainEvent]:
    async with app.state.sessionmaker() as session:
        statement = select(DomainEvent).where(DomainEvent.source_id == str(run.automation_id))
        return list((await session.scalars(statement)).all())


async def _finish(app: Any, run: Run, outcome: Outcome, sent: list[Job]) -> Run | None:
    async with transaction(app.state.sessionmaker, sent.append) as session:
        return await finish_claim(session, run, outcome, DispatchLimits(), utcnow())


async def test_a_finished_claim_is_one_update_with_its_event(app: Any, factory: Factory) -> None:
    run = await _claimed(app, factory)
    sent: list[Job] = []
    finished = await _finish(app, run, Outcome("succeeded", output={"ok": True}), sent)
    assert finished is not None
    assert finished.status is RunStatus.succeeded
    assert finished.output == {"ok": True}
    assert finished.finished_at is not None
    assert finished.claimed_by is None
    (event,) = await _events(app, run)
    assert event.event_type == "automation.run.succeeded"
    # No event trigger of the space listens: the event is recorded as dispatched to nobody, and no
    # dispatcher is woken (tests/services/test_run_journal.py covers one that listens).
    assert (event.consumed_by, event.dispatched_at is not None) == ([], True)
    assert sent == []


async def test_a_lost_claim_records_nothing_and_sends_nothing(app: Any, factory: Factory) -> None:
    run = await _claimed(app, factory)
    stale = Run(id=run.id, attempt=run.attempt - 1, queue=run.queue, status=RunStatus.running)
    sent: list[Job] = []
    for outcome in (Outcome("succeeded"), Outcome("retry_later", retry_in_seconds=30)):
        assert await _finish(app, stale, outcome, sent) is None
    assert sent == []
    assert await _events(app, run) == []
    async with app.state.sessionmaker() as session:
        current = await session.get(Run, run.id)
    assert current is not None
    assert (current.status, current.finished_at) == (RunStatus.running, None)


async def test_a_retry_goes_back_to_pending_with_a_delayed_wake_up(app: Any, factory: Factory) -> None:
    run = await _claimed(app, factory)
    sent: list[Job] = []
    finished = await _finish(app, run, Outcome("retry_later", retry_in_seconds=30), sent)
    assert finished is not None
    assert finished.status is RunStatus.pending
    assert finished.retry_at is not None
    assert finished.finished_at is None
    assert [(job.name, job.args, job.countdown) for job in sent] == [("runs.execute", (str(run.id),), 30)]
    assert await _events(app, run) == []


async def test_finish_refuses_an_edge_that_does_not_leave_running(app: Any, factory: Factory) -> None:
    run = await _claimed(app, factory)
    async with app.state.sessionmaker() as session:
        with pytest.raises(TransitionRefused, match="the cancel transition cannot take a run from running"):
            await RunRepository(session).finish(run.id, run.attempt, run_states.CANCEL, {})
