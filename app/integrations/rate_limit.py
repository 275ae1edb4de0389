"""Per-key rate limiting in Redis (webhook fires per trigger), failing open when Redis is unavailable.

Algorithm: GCRA, written as the equivalent leaky bucket. Each key holds a *debt* and the time it was
last updated. A request adds `window` microseconds of debt; debt drains at `limit` per microsecond; a
request is allowed when the debt after it is at most `limit * window`. So a key takes a burst of `limit`
requests, then one more every `window / limit` seconds, and never more than `limit` in any `window`
starting from empty. Unlike a sliding-window log it costs O(1) memory and time per key whatever the limit,
and unlike fixed windows it lets no double burst through at a window edge.

The arithmetic runs in one Lua script, so concurrent callers on any number of processes cannot
overshoot; it uses the Redis server's clock (`TIME`), so their clocks need not agree. All numbers are
integers below 2**53, which Lua's doubles hold exactly. A key expires when its debt has drained, so an
idle key never outlives its window.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

KEY_PREFIX = "automations:ratelimit:"
DEFAULT_TIMEOUT_SECONDS = 0.5
WARNING_INTERVAL_SECONDS = 60.0
_MAX_EXACT = 2**52
"""`limit * window` in microseconds must stay below this so the script's doubles are exact integers."""

# KEYS[1] the bucket; ARGV[1] limit (requests); ARGV[2] window (integer microseconds).
# Returns {allowed 0/1, remaining, retry after in microseconds}. Numbers are written with
# string.format('%.0f'): Redis would print a large Lua number in exponent form and lose digits.
_SCRIPT = """
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local capacity = limit * window
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local state = redis.call('HMGET', KEYS[1], 'debt', 'at')
local debt = tonumber(state[1]) or 0
local at = tonumber(state[2]) or now
if now > at then
  debt = math.max(debt - (now - at) * limit, 0)
end
local after = debt + window
if after > capacity then
  return {0, 0, math.ceil((after - capacity) / limit)}
end
redis.call('HSET', KEYS[1], 'debt', string.format('%.0f', after), 'at', string.format('%.0f', now))
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.ceil(after / limit / 1000) + 1))
return {1, math.floor((capacity - after) / window), 0}
"""


@dataclass(frozen=True)
class RateDecision:
    """The answer for one request.

    `remaining` is how many more requests the key would take right now; `retry_after_seconds` is how
    long a refused caller should wait (0 when allowed); `checked` is False when Redis could not be asked
    and the request was let through unchecked (fail open; `remaining` is then the whole `limit`, since
    nothing was counted).
    """

    allowed: bool
    remaining: int
    retry_after_seconds: float
    checked: bool = True


class RateLimiter:
    """GCRA rate limits per key, atomically in Redis; fails open when Redis is unreachable or errors.

    Build the client with short socket timeouts, e.g.
    `Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)`: each check is also bounded by
    `timeout_seconds` with `asyncio.timeout`, but a client without timeouts can still hold a connection
    slot on a dead server. Create one limiter per process and share it: it holds the registered script
    and the state that keeps the "Redis unavailable" warning to one per `WARNING_INTERVAL_SECONDS`.
    """

    def __init__(
        self, client: Redis, *, key_prefix: str = "", timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    ) -> None:
        self._script = client.register_script(_SCRIPT)
        # The installation's prefix, before the limiter's own: installations sharing a Redis count apart.
        self._key_prefix = key_prefix + KEY_PREFIX
        self._timeout_seconds = timeout_seconds
        self._last_warning: float | None = None
        self._failing = False

    async def allow(self, key: str, *, limit: int, window_seconds: float) -> RateDecision:
        """Count one request against `key`: at most `limit` per `window_seconds` (burst `limit`).

        Raises ValueError for a limit below 1, a window of no time, or a pair too large to count exactly
        (`limit * window` above about 140 years of microseconds). Never raises for Redis trouble: the
        request is allowed with `checked=False`.
        """
        window_us = _window_microseconds(limit, window_seconds)
        try:
            # A deadline on this task, not `wait_for`: that would start a task for every check.
            async with asyncio.timeout(self._timeout_seconds):
                reply = await self._script(keys=[self._key_prefix + key], args=[limit, window_us])
        except (RedisError, OSError, TimeoutError) as exc:
            # Webhook intake must not stop because Redis did: let the request through, say so rarely.
            self._note_unavailable(exc)
            return RateDecision(allowed=True, remaining=limit, retry_after_seconds=0.0, checked=False)
        if self._failing:
            self._failing = False
            logger.info("Redis answers again: rate limiting is back on")
        return _decision(reply)

    def _note_unavailable(self, exc: BaseException) -> None:
        self._failing = True
        now = time.monotonic()
        if self._last_warning is not None and now - self._last_warning < WARNING_INTERVAL_SECONDS:
            return
        self._last_warning = now
        logger.warning(
            "Rate limiting is off because Redis is unavailable (%s); requests are let through unchecked",
            type(exc).__name__,
        )


def _window_microseconds(limit: int, window_seconds: float) -> int:
    if limit < 1:
        raise ValueError("limit must be at least 1")
    if not math.isfinite(window_seconds) or window_seconds <= 0:
        raise ValueError("window_seconds must be a positive number")
    window_us = max(1, round(window_seconds * 1_000_000))
    if limit * window_us > _MAX_EXACT:
        raise ValueError("limit * window_seconds is too large to count exactly")
    return window_us


def _decision(reply: Any) -> RateDecision:
    allowed, remaining, retry_after_us = (int(value) for value in reply)
    return RateDecision(
        allowed=bool(allowed),
        remaining=max(remaining, 0),
        retry_after_seconds=retry_after_us / 1_000_000,
    )
