"""Per-email counts of failed password sign-ins in Redis, shared by every API process.

The count lives under a digest of the email (no addresses in Redis keys) and expires
`window_seconds` after the first failure; the failure that reaches the limit restarts the expiry, so
the email stays locked for a full window from then. A successful sign-in clears the count. When Redis
cannot be asked the lock fails open (with a warning): the per-address throttle still applies, and an
outage of the broker must not lock every user out.
"""

from __future__ import annotations

import hashlib
import logging

from redis.asyncio import Redis
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


class SignInLockout:
    """Counts failures per email; `locked_for` says how long an email is still refused."""

    def __init__(self, redis: Redis, *, prefix: str, limit: int, window_seconds: int) -> None:
        self.redis = redis
        self.prefix = prefix
        self.limit = limit
        self.window_seconds = window_seconds

    def _key(self, email: str) -> str:
        digest = hashlib.sha256(email.lower().encode("utf-8")).hexdigest()
        return f"{self.prefix}signin-failures:{digest}"

    async def locked_for(self, email: str) -> int:
        """Seconds the email is still locked (0 when it may try)."""
        key = self._key(email)
        try:
            count = await self.redis.get(key)
            if count is None or int(count) < self.limit:
                return 0
            return max(1, int(await self.redis.ttl(key)))
        except RedisError as exc:
            logger.warning("sign-in lockout unavailable, failing open: %r", exc)
            return 0

    async def record_failure(self, email: str) -> None:
        """Count one failed attempt; the one that reaches the limit locks for a full window."""
        key = self._key(email)
        try:
            count = int(await self.redis.incr(key))
            if count == 1 or count >= self.limit:
                await self.redis.expire(key, self.window_seconds)
        except RedisError as exc:
            logger.warning("sign-in lockout unavailable, failure not counted: %r", exc)

    async def clear(self, email: str) -> None:
        """Forget the failures of an email after it signs in."""
        try:
            await self.redis.delete(self._key(email))
        except RedisError as exc:
            logger.warning("sign-in lockout unavailable, count not cleared: %r", exc)
