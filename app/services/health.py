"""Readiness: can this process reach the database and the broker right now?"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncEngine

from app.persistence.health import database_answers

logger = logging.getLogger(__name__)
CHECK_TIMEOUT_SECONDS = 2.0
BEAT_TICK_KEY = "automations:beat:last_tick"
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


def _word(ok: bool) -> str:
    return "ok" if ok else "unreachable"


async def record_beat_tick(redis: Redis, now: datetime) -> str:
    """Remember when beat last ticked, so `readyz` and `automations check` can show it."""
    stamp = now.isoformat()
    await redis.set(BEAT_TICK_KEY, stamp, ex=BEAT_TICK_TTL_SECONDS)
    return stamp


async def database_status(engine: AsyncEngine) -> str:
    """ "ok", or "unreachable" (the reason goes to the log only)."""
    try:
        await asyncio.wait_for(database_answers(engine), CHECK_TIMEOUT_SECONDS)
    except Exception as exc:  # any failure means not ready
        logger.warning("readiness: database unreachable: %s", type(exc).__name__)
        return "unreachable"
    return "ok"


async def check_readiness(engine: AsyncEngine, redis: Redis) -> Readiness:
    """Probe both backing services concurrently, each with a short timeout."""

    async def database() -> bool:
        return await database_status(engine) == "ok"

    async def broker() -> tuple[bool, str | None]:
        try:
            tick = await asyncio.wait_for(redis.get(BEAT_TICK_KEY), CHECK_TIMEOUT_SECONDS)
        except Exception as exc:
            logger.warning("readiness: broker unreachable: %s", type(exc).__name__)
            return False, None
        return True, tick.decode() if isinstance(tick, bytes) else tick

    db_ok, (broker_ok, tick) = await asyncio.gather(database(), broker())
    return Readiness(database=db_ok, broker=broker_ok, beat_last_tick=tick)
