"""The sign-in admission against a real Redis: counted before verification, slots given back or
expiring, and failing open when Redis cannot be asked."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from app.integrations.lockout import SignInLockout


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


def _lockout(redis: Redis, **changes: float) -> SignInLockout:
    options = {"limit": 3, "window_seconds": 60, "slots": 1, "slot_seconds": 30.0, **changes}
    return SignInLockout(
        redis,
        prefix=f"test-lockout-{uuid.uuid4().hex[:8]}:",
        limit=int(options["limit"]),
        window_seconds=int(options["window_seconds"]),
        slots=int(options["slots"]),
        slot_seconds=options["slot_seconds"],
    )


class TestAdmission:
    async def test_parallel_attempts_past_the_limit_are_locked_before_any_is_verified(
        self, redis: Redis
    ) -> None:
        lockout = _lockout(redis, limit=3, slots=10)
        admissions = await asyncio.gather(*(lockout.admit("a@example.test") for _ in range(20)))
        assert sum(a.slot is not None for a in admissions) == 3
        locked = [a for a in admissions if a.locked_for > 0]
        assert len(locked) == 17
        assert all(0 < a.locked_for <= 60 for a in locked)

    async def test_a_success_clears_the_count_and_gives_the_slot_back(self, redis: Redis) -> None:
        lockout = _lockout(redis, limit=2, slots=1)
        first = await lockout.admit("b@example.test")
        busy = await lockout.admit("B@example.test")
        assert first.slot is not None
        assert busy.busy_for == 1, "one slot, held by the first attempt"
        await lockout.release(first, succeeded=True)
        again = await lockout.admit("b@example.test")
        assert again.slot is not None, "the success cleared the count the busy attempt added"
        await lockout.release(again, succeeded=False)
        last = await lockout.admit("b@example.test")
        assert last.slot is not None, "the attempt that reaches the limit is still verified"
        await lockout.release(last, succeeded=False)
        assert (await lockout.admit("b@example.test")).locked_for > 0

    async def test_a_slot_never_given_back_frees_itself(self, redis: Redis) -> None:
        lockout = _lockout(redis, limit=100, slots=1, slot_seconds=0.2)
        held = await lockout.admit("c@example.test")
        assert held.slot is not None
        deadline = time.monotonic() + 5
        while (answer := await lockout.admit("c@example.test")).slot is None:
            assert answer.busy_for > 0
            assert time.monotonic() < deadline, "the abandoned slot never expired"
            await asyncio.sleep(0.05)

    async def test_redis_down_admits_and_warns(self, caplog: pytest.LogCaptureFixture) -> None:
        dead = Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.2)
        lockout = _lockout(dead)
        with caplog.at_level(logging.WARNING, logger="app.integrations.lockout"):
            admission = await lockout.admit("d@example.test")
            await lockout.release(admission, succeeded=False)
        await dead.aclose()
        assert admission.locked_for == 0
        assert admission.busy_for == 0
        assert "failing open" in caplog.text
