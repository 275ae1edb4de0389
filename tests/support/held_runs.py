"""Runs a test moves through the state machine itself, statement by statement: fired onto a queue no
worker consumes, claimed and finished with their wake-ups dropped, so no worker competes for them."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from sqlalchemy import update

from app import jobs
from app.engine.claim_ports import Outcome
from app.persistence.autocommit import AutocommitWrites
from app.persistence.base import utcnow
from app.persistence.models import Run
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.repositories.runs import RunRepository
from app.persistence.transaction import transaction
from app.services.runs.dispatch import dispatcher
from app.services.runs.finishing import finish_claim
from app.services.runs.fire_request import FireRequest
from app.services.runs.limits import DispatchLimits
from tests.support.factories import Caller, minimal_definition
from tests.support.runs import STORED_RUNS_QUEUE

# Long enough that recovery never takes a run back while the test holds it.
LEASE = timedelta(hours=1)


def drop_wake_ups(job: Any) -> None:
    """The transactions' post-commit sender: it sends nothing."""


async def fire(app: Any, automation_id: str) -> Run:
    """A manual fire of the automation, committed on the queue no worker consumes (`STORED_RUNS_QUEUE`):
    a drain of the session's worker takes any pending run of a queue it consumes, wake-up or none."""
    async with transaction(app.state.sessionmaker, drop_wake_ups) as session:
        row = await AutomationRepository(session).get_by_id(uuid.UUID(automation_id))
        assert row is not None
        fired = await dispatcher.fire(session, (row, FireRequest(trigger_type="manual")), DispatchLimits())
        await session.execute(update(Run).where(Run.id == fired.run.id).values(queue=STORED_RUNS_QUEUE))
    async with app.state.sessionmaker() as session:
        run = await session.get(Run, fired.run.id)
    assert run is not None
    return run


async def queueing_automation(owner: Caller) -> dict[str, Any]:
    """A new automation that queues its runs behind one under way: while a run of it is held, a queued
    run of it stays queued whatever beat's tick promotes meanwhile."""
    return await owner.create_automation(minimal_definition(execution={"concurrency": "queue"}))


async def claim(app: Any, run_id: uuid.UUID) -> Run:
    """The run claimed by this test."""
    async with transaction(app.state.sessionmaker, drop_wake_ups) as session:
        run = await RunRepository(session).claim(run_id, "test-worker", LEASE, utcnow())
    assert run is not None
    return run


async def finish(app: Any, run: Run, outcome: Outcome) -> Run | None:
    """The claim ended with `outcome`, as the worker ends it (one statement when it can, else a
    transaction, on a connection of its own); None if the claim was lost."""
    with jobs.job_scope():
        async with AutocommitWrites.open(app.state.engine) as writes:
            return await finish_claim(writes, run, outcome, DispatchLimits(), utcnow())


def suspended() -> Outcome:
    """A claim that ends waiting for an approval."""
    suspension = {"reason": "approval_required", "capability": "http.request", "call": {"index": 0}}
    return Outcome("suspended", suspension=suspension)
