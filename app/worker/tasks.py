"""Thin Celery tasks: open the runtime, call a function, nothing else."""

from __future__ import annotations

import socket
from datetime import UTC, datetime

from celery import shared_task

from app.services.health import BEAT_TICK_KEY
from app.worker.runtime import run, runtime

# Older than this, the tick is stale and `readyz` shows the last one it saw.
BEAT_TICK_TTL_SECONDS = 3600


async def _record_tick() -> str:
    stamp = datetime.now(UTC).isoformat()
    await runtime().redis.set(BEAT_TICK_KEY, stamp, ex=BEAT_TICK_TTL_SECONDS)
    return stamp


@shared_task(name="system.tick")  # type: ignore[untyped-decorator]
def tick() -> str:
    """Beat's periodic tick. Later work (due schedules, recovery, sweepers) hangs off it."""
    return run(_record_tick())


@shared_task(name="system.ping", ignore_result=False)  # type: ignore[untyped-decorator]
def ping() -> dict[str, str]:
    """Answer with the worker's host name: `automations check` uses it to see each queue is served."""
    return {"pong": socket.gethostname()}
