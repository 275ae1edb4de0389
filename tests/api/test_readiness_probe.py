"""`/readyz` takes no token, so its checks are shared: at most one per second, whatever the rate; beat's
last tick, which it shows, is kept behind the installation's key prefix."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

from fastapi import FastAPI

from app.services.health import ReadinessProbe, beat_tick_key, last_beat_tick, record_beat_tick


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _probe(app: FastAPI, clock: Clock) -> ReadinessProbe:
    return ReadinessProbe(app.state.engine, app.state.redis, max_age=1.0, clock=clock)


async def test_a_fresh_answer_is_reused_until_it_is_a_second_old(app: FastAPI) -> None:
    clock = Clock()
    probe = _probe(app, clock)
    first = await probe.check()
    assert first.ready
    clock.now += 0.9
    assert await probe.check() is first
    clock.now += 0.2
    again = await probe.check()
    assert again is not first
    assert again.ready


async def test_concurrent_probes_share_one_check(app: FastAPI) -> None:
    probe = _probe(app, Clock())
    answers = await asyncio.gather(*(probe.check() for _ in range(50)))
    assert all(answer is answers[0] for answer in answers)


async def test_a_caller_that_goes_away_does_not_cancel_the_shared_check(app: FastAPI) -> None:
    probe = _probe(app, Clock())
    impatient = asyncio.create_task(probe.check())
    patient = asyncio.create_task(probe.check())
    await asyncio.sleep(0)
    impatient.cancel()
    assert (await patient).ready


async def test_beat_tick_is_kept_behind_the_installation_key_prefix(app: FastAPI) -> None:
    # Two installations sharing one Redis, each with its own key prefix, each see their own beat.
    ours, theirs = f"a-{uuid.uuid4().hex[:8]}:", f"b-{uuid.uuid4().hex[:8]}:"
    tick = datetime(2026, 11, 29, 6, 0, 3, tzinfo=UTC)
    await record_beat_tick(app.state.redis, tick, ours)
    mine = ReadinessProbe(app.state.engine, app.state.redis, key_prefix=ours)
    other = ReadinessProbe(app.state.engine, app.state.redis, key_prefix=theirs)
    assert (await mine.check()).beat_last_tick == tick.isoformat()
    assert await mine.last_tick() == tick
    assert (await other.check()).beat_last_tick is None
    assert await other.last_tick() is None


async def test_an_unreadable_beat_tick_is_not_known(app: FastAPI) -> None:
    prefix = f"c-{uuid.uuid4().hex[:8]}:"
    await app.state.redis.set(beat_tick_key(prefix), "not a time")
    assert await last_beat_tick(app.state.redis, prefix) is None
