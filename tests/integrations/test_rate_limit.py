"""The Redis rate limiter against a real Redis: counting, refusal, recovery, concurrency, failing open."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from app.integrations.rate_limit import KEY_PREFIX, RateDecision, RateLimiter
from tests.support.servers import redis_with_db

# A database of its own (the shared suite uses 11), flushed once when this module starts.
RATE_LIMIT_DB = 14
LOGGER = "app.integrations.rate_limit"


def _answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def _redis_url() -> str:
    """REDIS_URL when set, else a server on the default port; database 14 either way."""
    if url := os.environ.get("REDIS_URL"):
        return redis_with_db(url, RATE_LIMIT_DB)
    if _answers("127.0.0.1", 6379):
        return f"redis://127.0.0.1:6379/{RATE_LIMIT_DB}"
    pytest.skip("no Redis: set REDIS_URL or run a server on 127.0.0.1:6379 (CI has one there)")


@pytest.fixture(scope="module")
async def client() -> AsyncIterator[Redis]:
    redis = Redis.from_url(_redis_url(), socket_timeout=5, socket_connect_timeout=5)
    await redis.flushdb()
    yield redis
    await redis.aclose()


@pytest.fixture
def limiter(client: Redis) -> RateLimiter:
    # These tests check the arithmetic, so a busy machine must not turn a slow answer into fail-open
    # (the production bound of half a second is tested with an unreachable Redis).
    return RateLimiter(client, timeout_seconds=5)


def new_key() -> str:
    return f"trigger-{uuid.uuid4().hex}"


async def test_under_the_limit_is_allowed_with_decreasing_remaining(limiter: RateLimiter) -> None:
    key = new_key()
    decisions = [await limiter.allow(key, limit=5, window_seconds=60) for _ in range(5)]
    assert [decision.remaining for decision in decisions] == [4, 3, 2, 1, 0]
    assert all(decision.allowed and decision.checked for decision in decisions)
    assert all(decision.retry_after_seconds == 0 for decision in decisions)


async def test_over_the_limit_is_refused_with_a_retry_after(limiter: RateLimiter) -> None:
    key = new_key()
    for _ in range(10):
        assert (await limiter.allow(key, limit=10, window_seconds=10)).allowed
    refused = await limiter.allow(key, limit=10, window_seconds=10)
    assert not refused.allowed
    assert refused.checked
    assert refused.remaining == 0
    # GCRA frees one slot every window / limit = 1 s; a little of that second has already passed.
    assert 0 < refused.retry_after_seconds <= 1.0
    again = await limiter.allow(key, limit=10, window_seconds=10)
    assert not again.allowed  # a refused request does not add to the debt, nor does it reset it
    assert again.retry_after_seconds <= refused.retry_after_seconds


async def test_the_window_passing_restores_the_limit(limiter: RateLimiter) -> None:
    key = new_key()
    assert (await limiter.allow(key, limit=2, window_seconds=1)).allowed
    assert (await limiter.allow(key, limit=2, window_seconds=1)).allowed
    assert not (await limiter.allow(key, limit=2, window_seconds=1)).allowed
    await asyncio.sleep(1.1)
    restored = await limiter.allow(key, limit=2, window_seconds=1)
    assert restored == RateDecision(allowed=True, remaining=1, retry_after_seconds=0.0, checked=True)


async def test_keys_are_independent(limiter: RateLimiter) -> None:
    first, second = new_key(), new_key()
    for _ in range(3):
        await limiter.allow(first, limit=3, window_seconds=60)
    assert not (await limiter.allow(first, limit=3, window_seconds=60)).allowed
    other = await limiter.allow(second, limit=3, window_seconds=60)
    assert other.allowed
    assert other.remaining == 2


async def test_concurrent_calls_allow_exactly_the_limit(limiter: RateLimiter) -> None:
    key = new_key()
    decisions = await asyncio.gather(*(limiter.allow(key, limit=10, window_seconds=60) for _ in range(50)))
    assert sum(decision.allowed for decision in decisions) == 10
    assert all(decision.checked for decision in decisions)
    assert sorted(decision.remaining for decision in decisions if decision.allowed) == list(range(10))


async def test_keys_are_namespaced_and_expire(client: Redis, limiter: RateLimiter) -> None:
    key = new_key()
    await limiter.allow(key, limit=4, window_seconds=30)
    assert await client.exists(KEY_PREFIX + key) == 1
    assert KEY_PREFIX == "automations:ratelimit:"
    # One request's debt drains in window / limit = 7.5 s; the key lives no longer than that.
    ttl_ms = await client.pttl(KEY_PREFIX + key)
    assert 0 < ttl_ms <= 7_501


async def test_installations_sharing_a_redis_count_apart(client: Redis) -> None:
    key = new_key()
    first = RateLimiter(client, key_prefix="first:", timeout_seconds=5)
    second = RateLimiter(client, key_prefix="second:", timeout_seconds=5)
    assert (await first.allow(key, limit=1, window_seconds=60)).allowed
    assert not (await first.allow(key, limit=1, window_seconds=60)).allowed
    assert (await second.allow(key, limit=1, window_seconds=60)).allowed, "the other installation's count"
    assert await client.exists("first:" + KEY_PREFIX + key) == 1
    assert await client.exists(KEY_PREFIX + key) == 0


@pytest.mark.parametrize(
    ("limit", "window_seconds"),
    [(0, 1), (-1, 1), (1, 0), (1, -1), (1, float("nan")), (1, float("inf")), (10**9, 10**9)],
)
async def test_nonsense_limits_are_refused(limiter: RateLimiter, limit: int, window_seconds: float) -> None:
    with pytest.raises(ValueError, match=r"limit|window"):
        await limiter.allow(new_key(), limit=limit, window_seconds=window_seconds)


async def test_unreachable_redis_fails_open_and_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    unreachable = Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.2, socket_timeout=0.2)
    limiter = RateLimiter(unreachable)
    try:
        with caplog.at_level(logging.WARNING, logger=LOGGER):
            decisions = [await limiter.allow("trigger-x", limit=1, window_seconds=60) for _ in range(4)]
    finally:
        await unreachable.aclose()
    assert decisions == [RateDecision(allowed=True, remaining=1, retry_after_seconds=0.0, checked=False)] * 4
    warnings = [record for record in caplog.records if record.name == LOGGER]
    assert len(warnings) == 1
    assert warnings[0].levelno == logging.WARNING
    assert "Rate limiting is off because Redis is unavailable" in warnings[0].getMessage()


async def test_a_silent_server_times_out_and_fails_open(caplog: pytest.LogCaptureFixture) -> None:
    # A listener that accepts connections and never answers: only the limiter's own timeout ends the wait.
    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()
        writer.close()

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    silent = Redis(host="127.0.0.1", port=port)
    try:
        limiter = RateLimiter(silent, timeout_seconds=0.2)
        with caplog.at_level(logging.WARNING, logger=LOGGER):
            decision = await limiter.allow("trigger-y", limit=3, window_seconds=60)
    finally:
        await silent.aclose()
        server.close()
        await server.wait_closed()
    assert decision.allowed
    assert not decision.checked
    assert [record.levelno for record in caplog.records if record.name == LOGGER] == [logging.WARNING]
