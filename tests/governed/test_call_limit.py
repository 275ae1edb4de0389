"""The per-run call limit on real Redis: counted per run across processes, failing open without Redis."""

from __future__ import annotations

import logging
import uuid

import pytest
from redis.asyncio import Redis

from app.config import Settings
from app.integrations.rate_limit import RateLimiter
from app.worker.ports import RunCallLimiter


async def test_calls_past_the_limit_are_refused_per_run(settings: Settings) -> None:
    client = Redis.from_url(settings.resolved_redis_url())
    try:
        # Two limiters stand for two processes sharing the count.
        first, second = RunCallLimiter(RateLimiter(client), 3), RunCallLimiter(RateLimiter(client), 3)
        run, other = str(uuid.uuid4()), str(uuid.uuid4())
        assert [await first.allow(run), await second.allow(run), await first.allow(run)] == [True, True, True]
        assert await second.allow(run) is False
        assert await first.allow(other) is True, "another run has its own count"
    finally:
        await client.aclose()


async def test_without_redis_calls_go_through_with_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    client = Redis.from_url("redis://127.0.0.1:1/0", socket_timeout=0.2, socket_connect_timeout=0.2)
    try:
        limiter = RunCallLimiter(RateLimiter(client), 1)
        with caplog.at_level(logging.WARNING):
            assert [await limiter.allow("run") for _ in range(3)] == [True, True, True]
        warnings = [r for r in caplog.records if "Redis is unavailable" in r.getMessage()]
        assert len(warnings) == 1, "the warning is throttled"
    finally:
        await client.aclose()
