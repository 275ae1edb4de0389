"""The queue chart's data: beat's tick samples each space's queued and pending runs per worker queue
once a minute; the API answers a space's minutes, zeros where nothing waited, and nothing of another's.
On every tick it also sets the pending-runs gauge of each run queue."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app import metrics
from app.persistence.models import QueueSample, Run
from app.persistence.transaction import transaction
from app.services.identity.auth import auth_service
from app.services.runs.limits import DispatchLimits
from app.services.runs.queue_depth import QueueDepthService
from app.services.runs.recovery import recovery_service
from tests.support.factories import Caller, Factory
from tests.support.held_runs import queueing_automation
from tests.support.runs import CLAIMABLE_IN_MIX, run_row, waiting_mix


async def _waiting(app: Any, caller: Caller, statuses: list[str]) -> None:
    """Runs of a new automation of the caller's space, written as queued or pending with no broker message,
    so that nothing of the session moves them while the test samples: the pending ones are due in an
    hour (recovery sends no wake-up, no worker takes them) and hold the queued one back (the automation
    queues its runs, so no promotion moves it while they are under way)."""
    automation = await queueing_automation(caller)
    later = datetime.now(UTC) + timedelta(hours=1)
    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        session.add_all(
            Run(**run_row(caller, automation, status, retry_at=later if status == "pending" else None))
            for status in statuses
        )


async def _sample(app: Any, service: QueueDepthService, now: datetime) -> bool:
    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        return await service.sample(session, now)


def _minute(moment: datetime) -> datetime:
    return moment.replace(second=0, microsecond=0)


async def _samples_of(app: Any, space_id: str) -> list[datetime]:
    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        rows = await session.scalars(
            select(QueueSample.sampled_at).where(QueueSample.space_id == uuid.UUID(space_id))
        )
        return sorted(rows)


async def test_each_space_sees_its_own_waiting_runs_minute_by_minute(app: Any, factory: Factory) -> None:
    alice = await factory.owner()
    bob = await factory.owner()
    await _waiting(app, alice, ["queued", "pending", "pending"])
    await _waiting(app, bob, ["pending"])
    # Beat's tick, as it may come at any moment of the test: it neither sends nor promotes these runs.
    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        await recovery_service.recover(
            session, datetime.now(UTC), requeue_after=timedelta(seconds=0), limits=DispatchLimits()
        )

    now = datetime.now(UTC)
    earlier = now - timedelta(minutes=3)
    assert await _sample(app, QueueDepthService(), earlier)
    service = QueueDepthService()
    assert await _sample(app, service, now)
    assert not await _sample(app, service, now), "once a minute per process"
    assert await _sample(app, QueueDepthService(), now) is True, (
        "another process: the same minute, its row brought up to date, no new row"
    )
    sampled = await _samples_of(app, alice.space_id)
    assert sampled.count(_minute(now)) == 1
    assert _minute(earlier) in sampled

    answer = await alice.request("GET", alice.space_path("/queue/depth"), params={"minutes": 10})
    assert answer.status_code == 200, answer.text
    depth = answer.json()
    assert depth["minutes"] == 10
    [fast] = depth["queues"]
    assert len(fast["queued"]) == len(fast["pending"]) == 10
    slots = _slots(depth)
    assert slots[-1] - slots[0] == timedelta(minutes=9)
    # Where the window ends is beat's to say (the minute may have turned, or beat's last tick may be the
    # minute before): its minutes read what was sampled in them, and the sample of three minutes ago is in.
    assert _minute(now) - timedelta(minutes=1) <= slots[-1] <= _minute(now) + timedelta(minutes=1)
    alices = dict.fromkeys(await _samples_of(app, alice.space_id), (1, 2))
    answered = list(zip(fast["queued"], fast["pending"], strict=True))
    assert answered == [alices.get(slot, (0, 0)) for slot in slots], "1 queued, 2 pending, zeros elsewhere"
    assert fast["pending"][slots.index(_minute(earlier))] == 2

    theirs = (await bob.request("GET", bob.space_path("/queue/depth"))).json()
    assert theirs["minutes"] == 60
    [bobs] = theirs["queues"]
    assert bobs["queue"] == fast["queue"]
    sampled = set(await _samples_of(app, bob.space_id))
    assert bobs["pending"] == [int(slot in sampled) for slot in _slots(theirs)], "his one run, none of hers"
    assert sum(bobs["pending"]) >= 1


def _slots(depth: dict[str, Any]) -> list[datetime]:
    first = datetime.fromisoformat(depth["first_minute"])
    assert datetime.fromisoformat(depth["last_minute"]) == first + timedelta(minutes=depth["minutes"] - 1)
    return [first + timedelta(minutes=offset) for offset in range(depth["minutes"])]


async def test_an_idle_space_and_bad_ranges(factory: Factory) -> None:
    alice = await factory.owner()
    idle = (await alice.request("GET", alice.space_path("/queue/depth"), params={"minutes": 1})).json()
    assert idle["queues"] == []
    assert idle["minutes"] == 1
    for minutes in ("0", "-1", "1441", "an hour", "1.5"):
        response = await alice.request("GET", alice.space_path("/queue/depth"), params={"minutes": minutes})
        assert response.status_code == 422, (minutes, response.text)
        assert "minutes" in response.json()["error"]["details"][0]["path"]


async def test_another_space_is_404_and_old_samples_are_forgotten(app: Any, factory: Factory) -> None:
    alice = await factory.owner()
    bob = await factory.owner()
    await _waiting(app, alice, ["pending"])
    response = await bob.request("GET", bob.space_path("/queue/depth", space_id=alice.space_id))
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "space_not_found"

    now = datetime.now(UTC)
    assert await _sample(app, QueueDepthService(), now - timedelta(hours=25))
    assert len(await _samples_of(app, alice.space_id)) == 1
    assert await _sample(app, QueueDepthService(), now)
    kept = await _samples_of(app, alice.space_id)
    assert len(kept) == 1, "a day's samples are kept, no more"
    assert now - kept[0] < timedelta(minutes=1)


async def test_a_later_sample_of_the_same_minute_brings_its_row_up_to_date(
    app: Any, factory: Factory
) -> None:
    owner = await factory.owner()
    # A pending run first: a queued run alone in its automation would be beat's to promote at any tick.
    await _waiting(app, owner, ["pending"])
    now = datetime.now(UTC)
    assert await _sample(app, QueueDepthService(), now)
    await _waiting(app, owner, ["queued", "pending"])
    assert await _sample(app, QueueDepthService(), now)
    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        rows = (
            await session.execute(
                select(QueueSample.queued, QueueSample.pending).where(
                    QueueSample.space_id == uuid.UUID(owner.space_id)
                )
            )
        ).all()
    assert [tuple(row) for row in rows] == [(1, 2)], "one row for the minute, with the later counts"


async def test_before_beat_samples_a_new_minute_the_answer_ends_at_the_minute_before(
    app: Any, factory: Factory
) -> None:
    owner = await factory.owner()
    await _waiting(app, owner, ["pending", "pending"])
    sampled = datetime.now(UTC).replace(second=10, microsecond=0) - timedelta(minutes=5)
    assert await _sample(app, QueueDepthService(), sampled)
    minute = sampled.replace(second=0)
    # Three seconds into the next minute, beat's last finished tick is the sampled minute's.
    early = minute + timedelta(minutes=1, seconds=3)

    async def answer(last_tick: datetime | None) -> tuple[datetime, list[int]]:
        async with transaction(app.state.sessionmaker, app.state.send_job) as session:
            caller = await auth_service.authenticate(session, owner.token)
            access = await auth_service.space_access(session, caller, uuid.UUID(owner.space_id))
            depth = await QueueDepthService().of_space(session, access, 3, now=early, last_tick=last_tick)
        [fast] = depth["queues"]
        return depth["last_minute"], fast["pending"]

    assert await answer(minute + timedelta(seconds=10)) == (minute, [0, 0, 2]), "the sampled minute is last"
    # Once beat ticked in the new minute, that minute is sampled: it is the last one (nothing waited).
    assert await answer(early - timedelta(seconds=1)) == (minute + timedelta(minutes=1), [0, 2, 0])
    # No tick known, or beat stopped long ago: the current minute, as sampled or not.
    assert await answer(None) == (minute + timedelta(minutes=1), [0, 2, 0])
    assert await answer(minute - timedelta(minutes=30)) == (minute + timedelta(minutes=1), [0, 2, 0])


async def test_the_pending_runs_gauge_counts_what_each_run_queue_could_claim_now(
    app: Any, factory: Factory
) -> None:
    owner = await factory.owner()
    automation = await queueing_automation(owner)
    now = datetime.now(UTC)
    queues = tuple(CLAIMABLE_IN_MIX)
    # One snapshot, nothing committed: the session's other runs move neither count.
    async with app.state.engine.connect() as connection:
        await connection.execution_options(isolation_level="REPEATABLE READ")
        async with connection.begin() as outer:
            session = AsyncSession(bind=connection, expire_on_commit=False)
            before = await QueueDepthService().gauge_claimable(session, now, queues)
            session.add_all(Run(**row) for row in waiting_mix(owner, automation, now))
            await session.flush()
            after = await QueueDepthService().gauge_claimable(session, now, queues)
            await outer.rollback()
    assert {queue: after[queue] - before[queue] for queue in queues} == CLAIMABLE_IN_MIX
    for queue in queues:
        assert metrics.PENDING_RUNS.labels(queue=queue)._value.get() == after[queue]
