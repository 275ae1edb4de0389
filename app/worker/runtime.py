"""Per worker process: one event loop, one engine, one Redis client, created after the fork."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Coroutine
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, TypeVar

from celery import current_app
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.config import Settings, get_settings
from app.integrations.llm import LiteLlm
from app.jobs import Job
from app.persistence.db import create_engine, create_sessionmaker
from app.persistence.transaction import transaction
from app.security.egress import EgressAllowList
from app.services.dispatch import DispatchLimits, pricer

T = TypeVar("T")


@dataclass
class WorkerRuntime:
    pid: int
    name: str
    settings: Settings
    loop: asyncio.AbstractEventLoop
    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]
    redis: Redis
    egress_allow: EgressAllowList
    llm: LiteLlm
    limits: DispatchLimits

    def unit_of_work(self) -> AbstractAsyncContextManager[AsyncSession]:
        """A transaction this task owns: committed, then its jobs sent; rolled back on error."""
        return transaction(self.sessionmaker, send_job)


_runtime: WorkerRuntime | None = None


def runtime() -> WorkerRuntime:
    """This process's runtime; a forked child never reuses its parent's loop or connections."""
    global _runtime
    if _runtime is None or _runtime.pid != os.getpid():
        settings = get_settings()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        engine = create_engine(
            settings.resolved_database_url(), pool_size=2, application_name="automations-worker"
        )
        allow = EgressAllowList.parse(settings.egress_allow)
        llm = LiteLlm(settings.llm_allowed_models, settings.llm_models, allow)
        _runtime = WorkerRuntime(
            pid=os.getpid(),
            name=f"{socket.gethostname()}:{os.getpid()}",
            settings=settings,
            loop=loop,
            engine=engine,
            sessionmaker=create_sessionmaker(engine),
            redis=Redis.from_url(settings.resolved_redis_url()),
            egress_allow=allow,
            llm=llm,
            limits=DispatchLimits(max_concurrent_runs=settings.max_concurrent_runs, pricer=pricer(llm)),
        )
    return _runtime


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a task's coroutine on this process's loop."""
    return runtime().loop.run_until_complete(coroutine)


def send_job(job: Job) -> None:
    """Send a buffered job through the worker's Celery app (after the task's commit)."""
    current_app.send_task(
        job.name, args=job.args, kwargs=job.kwargs, queue=job.queue, countdown=job.countdown
    )
