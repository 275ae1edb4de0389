"""Every statement that moves a run's status writes `status_changed_at` with it, so what a live stream
replays after a gap (`changed_since`) includes runs whose only change was to start waiting for approval
or to leave the queue: moves that stamp no other timestamp."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import select

from app.definitions.run_states import RunStatus
from app.engine.claim_ports import Outcome
from app.persistence.base import utcnow
from app.persistence.models import Run
from app.persistence.repositories.runs import RunRepository
from tests.support.factories import Caller, Factory, minimal_definition
from tests.support.held_runs import claim, finish, fire, suspended


async def _changed_since(app: Any, owner: Caller, since: datetime) -> dict[uuid.UUID, RunStatus]:
    async with app.state.sessionmaker() as session:
        runs = await RunRepository(session).changed_since(uuid.UUID(owner.space_id), since, 50)
    return {run.id: run.status for run in runs}


async def _stamp(app: Any, run_id: uuid.UUID) -> datetime:
    async with app.state.sessionmaker() as session:
        return (await session.scalars(select(Run.status_changed_at).where(Run.id == run_id))).one()


async def test_a_run_that_starts_waiting_for_approval_is_replayed(app: Any, factory: Factory) -> None:
    owner = await factory.owner()
    automation = await owner.create_automation()
    run = await claim(app, (await fire(app, automation["id"])).id)
    claimed_at = await _stamp(app, run.id)
    since = utcnow()
    assert run.id not in await _changed_since(app, owner, since), "nothing moved yet"

    waiting = await finish(app, run, suspended())

    assert waiting is not None
    assert waiting.status is RunStatus.awaiting_approval
    assert waiting.started_at is not None
    assert waiting.started_at < since, "no other timestamp moved"
    assert await _stamp(app, run.id) > claimed_at
    assert (await _changed_since(app, owner, since))[run.id] is RunStatus.awaiting_approval


async def test_a_run_promoted_from_the_queue_is_replayed(app: Any, factory: Factory) -> None:
    owner = await factory.owner()
    document = minimal_definition(execution={"concurrency": "queue"})
    automation = await owner.create_automation(document)
    first = await claim(app, (await fire(app, automation["id"])).id)
    second = await fire(app, automation["id"])
    assert second.status is RunStatus.queued
    queued_at = await _stamp(app, second.id)
    since = utcnow()

    assert await finish(app, first, Outcome("succeeded")) is not None

    changed = await _changed_since(app, owner, since)
    assert changed[first.id] is RunStatus.succeeded
    assert changed[second.id] is RunStatus.pending, "promoted: queued -> pending, nothing else stamped"
    assert await _stamp(app, second.id) > queued_at


async def test_a_retry_later_and_a_new_claim_move_the_stamp(app: Any, factory: Factory) -> None:
    owner = await factory.owner()
    automation = await owner.create_automation()
    run = await claim(app, (await fire(app, automation["id"])).id)
    stamps = [await _stamp(app, run.id)]

    backing_off = await finish(app, run, Outcome("retry_later", retry_in_seconds=0))
    assert backing_off is not None
    assert backing_off.status is RunStatus.pending
    stamps.append(await _stamp(app, run.id))
    since = utcnow()
    again = await claim(app, run.id)
    stamps.append(await _stamp(app, run.id))

    assert again.started_at == run.started_at, "a second claim keeps the first start"
    assert stamps == sorted(stamps)
    assert len(set(stamps)) == 3
    assert (await _changed_since(app, owner, since))[run.id] is RunStatus.running


async def test_changes_before_since_and_other_spaces_are_left_out(app: Any, factory: Factory) -> None:
    owner, stranger = await factory.owner(), await factory.owner(space="Elsewhere")
    old = await fire(app, (await owner.create_automation())["id"])
    since = utcnow()
    theirs = await fire(app, (await stranger.create_automation())["id"])
    new = await fire(app, (await owner.create_automation())["id"])

    changed = await _changed_since(app, owner, since)
    assert new.id in changed
    assert old.id not in changed
    assert theirs.id not in changed
