"""`/readyz` takes no token, so its checks are shared: at most one per second, whatever the rate."""

from __future__ import annotations

import asyncio

from fastapi import FastAPI

from app.services.health import ReadinessProbe


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
