"""Readiness: can this process reach the database and the broker right now?"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from redis.asyncio import Redis

from app import metrics
from app.persistence.health import database_answers
from app.persistence.types import AsyncEngine

logger = logging.getLogger(__name__)
CHECK_TIMEOUT_SECONDS = 2.0
# Behind the installation's key prefix (AUTOMATIONS_REDIS_KEY_PREFIX): installations sharing one Redis
# each see their own beat.
BEAT_TICK_KEY = "automations:beat:last_tick"
READINESS_MAX_AGE_SECONDS = 1.0
# A tick older than this is forgotten: `readyz` then shows no tick, a sign beat is not running.
BEAT_TICK_TTL_SECONDS = 3600


@dataclass(frozen=True)
class Readiness:
    database: bool
    broker: bool
    beat_last_tick: str | None

    @property
    def ready(self) -> bool:
        return self.database and self.broker

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": "ready" if self.ready else "unavailable",
            "checks": {"database": _word(self.database), "broker": _word(self.broker)},
            "beat_last_tick": self.beat_last_tick,
        }


def beat_tick_key(key_prefix: str) -> str:
    """The Redis key of beat's last tick for the installation with this key prefix."""
    return f"{key_prefix}{BEAT_TICK_KEY}"


def _word(ok: bool) -> str:
    return "ok" if ok else "unreachable"


async def record_beat_tick(redis: Redis, now: datetime, key_prefix: str = "") -> str:
    """Remember when beat's tick began (`now`), once the tick's work is done, so `readyz` and
    `automations check` can show it and the Queue page knows which minutes are sampled."""
    stamp = now.isoformat()
    await redis.set(beat_tick_key(key_prefix), stamp, ex=BEAT_TICK_TTL_SECONDS)
    return stamp


async def last_beat_tick(redis: Redis, key_prefix: str = "") -> datetime | None:
    """When the last finished tick of beat began; None when none is remembered or Redis does not answer
    (the caller goes on without it)."""
    try:
        stamp = await asyncio.wait_for(redis.get(beat_tick_key(key_prefix)), CHECK_TIMEOUT_SECONDS)
    except Exception as exc:  # a help, not a dependency: any failure means "not known"
        logger.warning("beat's last tick unreadable: %s", type(exc).__name__)
        return None
    if stamp is None:
        return None
    try:
        return datetime.fromisoformat(stamp.decode() if isinstance(stamp, bytes) else stamp)
    except ValueError:
        return None


async def sample_queue_depths(redis: Redis, queues: tuple[str, ...], key_prefix: str = "") -> dict[str, int]:
    """Messages waiting on each Celery queue (a Redis list named after the queue, behind the key prefix),
    recorded as the `automations_queue_depth` gauge."""
    depths: dict[str, int] = {}
    async with redis.pipeline(transaction=False) as pipe:
        for queue in queues:
            pipe.llen(f"{key_prefix}{queue}")
        answers = await pipe.execute()
    for queue, depth in zip(queues, answers, strict=True):
        depths[queue] = int(depth)
        metrics.queue_depth(queue, int(depth))
    return depths


async def database_status(engine: AsyncEngine) -> str:
    """ "ok", or "unreachable" (the reason goes to the log only)."""
    try:
        await asyncio.wait_for(database_answers(engine), CHECK_TIMEOUT_SECONDS)
    except Exception as exc:  # any failure means not ready
        logger.warning("readiness: database unreachable: %s", type(exc).__name__)
        return "unreachable"
    return "ok"


async def check_readiness(engine: AsyncEngine, redis: Redis, key_prefix: str = "") -> Readiness:
    """Probe both backing services concurrently, each with a short timeout."""

    async def database() -> bool:
        return await database_status(engine) == "ok"

    async def broker() -> tuple[bool, str | None]:
        try:
            tick = await asyncio.wait_for(redis.get(beat_tick_key(key_prefix)), CHECK_TIMEOUT_SECONDS)
        except Exception as exc:
            logger.warning("readiness: broker unreachable: %s", type(exc).__name__)
            return False, None
        return True, tick.decode() if isinstance(tick, bytes) else tick

    db_ok, (broker_ok, tick) = await asyncio.gather(database(), broker())
    return Readiness(database=db_ok, broker=broker_ok, beat_last_tick=tick)


class ReadinessProbe:
    """`check_readiness` run at most once per `max_age` seconds; concurrent callers share one check.

    `/readyz` takes no token. Checked on every call, a flood of probes would each hold a database
    connection and could drain the pool that authenticated requests need; cached, it costs one check
    per second whatever the rate.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        redis: Redis,
        *,
        key_prefix: str = "",
        max_age: float = READINESS_MAX_AGE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
        self.redis = redis
        self.key_prefix = key_prefix
        self.max_age = max_age
        self._clock = clock
        self._last: tuple[float, Readiness] | None = None
        self._running: asyncio.Task[Readiness] | None = None

    async def check(self) -> Readiness:
        """The latest readiness, checked again once it is older than `max_age`."""
        if self._last is not None and self._clock() - self._last[0] < self.max_age:
            return self._last[1]
        if self._running is None:
            self._running = asyncio.create_task(self._refresh())
        # Shielded: a caller that goes away must not cancel the check the others are waiting for.
        return await asyncio.shield(self._running)

    async def last_tick(self) -> datetime | None:
        """When beat's last finished tick began (`last_beat_tick`), read now rather than cached."""
        return await last_beat_tick(self.redis, self.key_prefix)

    async def _refresh(self) -> Readiness:
        try:
            readiness = await check_readiness(self.engine, self.redis, self.key_prefix)
            self._last = (self._clock(), readiness)
            return readiness
        finally:
            self._running = None
