"""The one door for a run's status changes: every edge of the run-state table applied through
`transition` on the real database, and every edge refused from a status it does not leave from."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from app import jobs
from app.definitions import run_states
from app.definitions.run_states import RunStatus, Transition, TransitionRefused
from app.engine.claim_ports import Outcome
from app.jobs import Job
from app.persistence.base import utcnow
from app.persistence.models import DomainEvent, Run
from app.persistence.transaction import transaction
from app.services.runs import transition as transitions
from app.services.runs.limits import DispatchLimits
from app.services.runs.moves import Move
from app.services.runs.transition import plan_of, transition
from tests.support.factories import Factory
from tests.support.held_runs import LEASE, claim, fire, queueing_automation

# Edges a worker's claim makes from running, and the outcome that names each.
HELD: dict[str, Outcome] = {
    "retry_later": Outcome("retry_later", retry_in_seconds=30),
    "suspend": Outcome("suspended", suspension={"reason": "approval_required"}),
    "succeed": Outcome("succeeded", output={"ok": True}),
    "fail": Outcome("failed", error={"code": "boom", "message": "it broke"}),
    "time_out": Outcome("timed_out", error={"code": "run_timeout", "message": "too slow"}),
    "stop": Outcome("cancelled"),
    "wait": Outcome("waiting", suspension={"wait": {"kind": "time"}}),
}
# `promote` and `claim` have statements of their own (the promoter's page, the claim's context).
THROUGH_THE_DOOR = [
    edge for edge in run_states.TRANSITIONS if edge not in (run_states.PROMOTE, run_states.CLAIM)
]
PAIRS = [(edge, source) for edge in THROUGH_THE_DOOR for source in sorted(edge.sources)]
REFUSED = [(edge, source) for edge in THROUGH_THE_DOOR for source in RunStatus if source not in edge.sources]


def _move(run: Run, edge: Transition, source: RunStatus) -> Move:
    now = utcnow()
    if source is RunStatus.running and edge.name in HELD:
        return Move(run, edge, now, DispatchLimits(), held=True, outcome=HELD[edge.name])
    held = edge is run_states.RELEASE
    return Move(run, edge, now, DispatchLimits(), held=held, sources=frozenset({source}))


@pytest.mark.parametrize(("edge", "source"), REFUSED, ids=lambda value: getattr(value, "name", value))
def test_an_edge_is_refused_from_a_status_it_does_not_leave(edge: Transition, source: RunStatus) -> None:
    run = Run(id=uuid.uuid4(), status=source, attempt=1, mode="live", chain_depth=0)
    with pytest.raises(
        TransitionRefused, match=f"the {edge.name} transition cannot take a run from {source}"
    ):
        plan_of(Move(run, edge, utcnow(), DispatchLimits()))


@pytest.mark.parametrize("edge", THROUGH_THE_DOOR, ids=lambda edge: edge.name)
def test_sources_wider_than_the_edge_are_refused(edge: Transition) -> None:
    source = next(iter(edge.sources))
    stray = frozenset({*edge.sources, RunStatus.dropped})
    run = Run(id=uuid.uuid4(), status=source, attempt=1, mode="live", chain_depth=0)
    with pytest.raises(TransitionRefused):
        plan_of(Move(run, edge, utcnow(), DispatchLimits(), sources=stray))


async def _in(app: Any, factory: Factory, source: RunStatus) -> Run:
    """A live run of a fresh automation, put in `source` (running: held by attempt 1, lease unexpired;
    queued: behind a run of its automation held by the test, so no promotion takes it meanwhile)."""
    owner = await factory.owner()
    automation = await queueing_automation(owner)
    if source is RunStatus.queued:
        await claim(app, (await fire(app, automation["id"])).id)
    run = await fire(app, automation["id"])
    values: dict[str, Any] = {"status": source}
    if source is RunStatus.running:
        values.update(attempt=1, claimed_by="test-worker", lease_expires_at=utcnow() + LEASE)
    async with app.state.sessionmaker() as session:
        await session.execute(update(Run).where(Run.id == run.id).values(**values))
        await session.commit()
        row = await session.get(Run, run.id)
    assert row is not None
    return row


@pytest.mark.parametrize(("edge", "source"), PAIRS, ids=lambda value: getattr(value, "name", value))
async def test_every_edge_is_applied_from_every_status_it_leaves(
    app: Any, factory: Factory, edge: Transition, source: RunStatus
) -> None:
    run = await _in(app, factory, source)
    sent: list[Job] = []
    async with transaction(app.state.sessionmaker, sent.append) as session:
        moved = await transition(session, _move(run, edge, source))
    assert moved is not None
    assert moved.status is edge.target
    assert (moved.claimed_by, moved.lease_expires_at) == (None, None)
    async with app.state.sessionmaker() as session:
        events = (
            await session.scalars(select(DomainEvent).where(DomainEvent.source_id == str(run.automation_id)))
        ).all()
    if edge.target in run_states.TERMINAL:
        assert moved.finished_at is not None
        assert [event.event_type for event in events] == [f"automation.run.{edge.target}"]
    else:
        assert moved.finished_at is None
        assert events == []
    wake_ups = [job for job in sent if job.name == "runs.execute"]
    assert [job.args for job in wake_ups] == ([(str(run.id),)] if edge.target is RunStatus.pending else [])


@pytest.mark.parametrize("edge", [run_states.CANCEL, run_states.RESUME], ids=lambda edge: edge.name)
async def test_a_run_that_moved_on_meanwhile_is_not_moved(
    app: Any, factory: Factory, edge: Transition
) -> None:
    run = await _in(app, factory, RunStatus.succeeded)
    # The mover still believes the run is where the edge leaves from; the statement knows better.
    run.status = next(iter(edge.sources))
    with jobs.job_scope() as queued:
        async with app.state.sessionmaker() as session:
            assert await transition(session, Move(run, edge, utcnow(), DispatchLimits())) is None
            await session.commit()
    assert queued == []
    async with app.state.sessionmaker() as session:
        row = await session.get(Run, run.id)
    assert row is not None
    assert row.status is RunStatus.succeeded


async def test_the_claim_edge_takes_a_pending_run_once(app: Any, factory: Factory) -> None:
    run = await _in(app, factory, RunStatus.pending)
    async with transaction(app.state.sessionmaker, lambda job: None) as session:
        claimed = await transitions.claim(session, run.id, "test-worker", timedelta(seconds=30), utcnow())
    assert claimed is not None
    assert (claimed.run.status, claimed.run.attempt) == (RunStatus.running, 1)
    async with transaction(app.state.sessionmaker, lambda job: None) as session:
        again = await transitions.claim(session, run.id, "other-worker", timedelta(seconds=30), utcnow())
    assert again is None
