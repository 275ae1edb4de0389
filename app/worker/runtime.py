"""Per worker process: one event loop, one engine, one Redis client, created after the fork."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import get_settings
from app.persistence.db import create_engine

T = TypeVar("T")


@dataclass
class WorkerRuntime:
    pid: int
    loop: asyncio.AbstractEventLoop
    engine: AsyncEngine
    redis: Redis


_runtime: WorkerRuntime | None = None


def runtime() -> WorkerRuntime:
    """This process's runtime; a forked child never reuses its parent's loop or connections."""
    global _runtime
    if _runtime is None or _runtime.pid != os.getpid():
        settings = get_settings()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        _runtime = WorkerRuntime(
            pid=os.getpid(),
            loop=loop,
            engine=create_engine(
                settings.resolved_database_url(), pool_size=2, application_name="automations-worker"
            ),
            redis=Redis.from_url(settings.resolved_redis_url()),
        )
    return _runtime


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a task's coroutine on this process's loop."""
    return runtime().loop.run_until_complete(coroutine)
