"""Per-email admission of password sign-ins in Redis, shared by every API process.

An attempt is counted before its password is verified, in the same Lua script that checks the lock, so
any number of parallel attempts cannot all pass the check before the first failure is recorded: of N
concurrent guesses, at most `limit` are let through within a window, whatever their order. The count
lives under a digest of the email (no addresses in Redis keys) and expires `window_seconds` after the
first attempt; the attempt that reaches the limit restarts the expiry, so the email stays locked for a
full window from then. A successful sign-in clears the count.

An admitted attempt also holds one of `slots` verification slots of its email (a sorted set of slot ids
scored by their deadline, so a process that dies mid-verification frees its slot after `slot_seconds`):
Argon2 costs tens of megabytes and a noticeable time, and one email's burst must not queue every other
user's sign-in behind it. An attempt that finds no free slot is refused as busy, and was still counted.

When Redis cannot be asked the admission fails open (with a warning): the per-address throttle still
applies, and an outage of the broker must not lock every user out.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from dataclasses import dataclass

from redis.asyncio import Redis
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# KEYS: attempt count, verification slots. ARGV: limit, window (s), slots, slot lifetime (ms), slot id.
# Answers {0, 0} admitted, {1, seconds} locked, {2, seconds} busy.
_ADMIT = """
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= limit then
  local ttl = redis.call('TTL', KEYS[1])
  if ttl < 0 then
    redis.call('EXPIRE', KEYS[1], window)
    ttl = window
  end
  return {1, math.max(ttl, 1)}
end
count = redis.call('INCR', KEYS[1])
if count == 1 or count >= limit then
  redis.call('EXPIRE', KEYS[1], window)
end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  return {2, 1}
end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[5])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[4]))
return {0, 0}
"""
_ADMITTED, _LOCKED, _BUSY = 0, 1, 2


@dataclass(frozen=True)
class Admission:
    """The answer to one sign-in attempt: let through (holding `slot`), locked, or busy."""

    email: str
    locked_for: int = 0
    """Seconds the email is still locked; 0 when not locked."""
    busy_for: int = 0
    """Seconds to wait for a free verification slot; 0 when one was taken (or none was needed)."""
    slot: str | None = None


class SignInLockout:
    """Counts attempts per email before they are verified, and bounds verifications running at once."""

    def __init__(
        self,
        redis: Redis,
        *,
        prefix: str,
        limit: int,
        window_seconds: int,
        slots: int = 2,
        slot_seconds: float = 30.0,
    ) -> None:
        self.redis = redis
        self.prefix = prefix
        self.limit = limit
        self.window_seconds = window_seconds
        self.slots = slots
        self.slot_seconds = slot_seconds
        self._admit = redis.register_script(_ADMIT)

    def _digest(self, email: str) -> str:
        return hashlib.sha256(email.lower().encode("utf-8")).hexdigest()

    def _count_key(self, email: str) -> str:
        return f"{self.prefix}signin-attempts:{self._digest(email)}"

    def _slots_key(self, email: str) -> str:
        return f"{self.prefix}signin-slots:{self._digest(email)}"

    async def attempts(self, email: str) -> int:
        """The sign-in attempts of this email counted in the current window."""
        return int(await self.redis.get(self._count_key(email)) or 0)

    async def admit(self, email: str) -> Admission:
        """Count one attempt and take a verification slot, atomically; refuse it when locked or busy."""
        slot = uuid.uuid4().hex
        try:
            verdict, seconds = await self._admit(
                keys=[self._count_key(email), self._slots_key(email)],
                args=[self.limit, self.window_seconds, self.slots, round(self.slot_seconds * 1000), slot],
            )
        except RedisError as exc:
            logger.warning("sign-in lockout unavailable, failing open: %r", exc)
            return Admission(email=email)
        if int(verdict) == _LOCKED:
            return Admission(email=email, locked_for=int(seconds))
        if int(verdict) == _BUSY:
            return Admission(email=email, busy_for=int(seconds))
        return Admission(email=email, slot=slot)

    async def release(self, admission: Admission, *, succeeded: bool) -> None:
        """Give the attempt's slot back; a success also forgets the email's earlier attempts."""
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                if admission.slot is not None:
                    pipe.zrem(self._slots_key(admission.email), admission.slot)
                if succeeded:
                    pipe.delete(self._count_key(admission.email))
                await pipe.execute()
        except RedisError as exc:
            logger.warning("sign-in lockout unavailable, attempt not released: %r", exc)
