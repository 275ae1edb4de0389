"""Per worker process: one event loop, one engine, one Redis client, created after the fork.

Everything else a task needs comes from `build_runtime`, the composition the API uses too.
"""

from __future__ import annotations

import asyncio
import importlib
import multiprocessing
import os
import socket
from collections.abc import Coroutine
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, TypeVar

from celery import current_app
from celery.signals import worker_process_shutdown, worker_shutdown, worker_shutting_down
from redis.asyncio import Redis

from app.composition import Runtime, build_runtime
from app.config import Settings, get_settings
from app.integrations.broker import BrokerPublisher
from app.integrations.slack import SlackApi
from app.integrations.smtp import RelayMail, SmtpMailer, SmtpRelay
from app.integrations.user_databases import QueryRunner
from app.persistence.autocommit import AutocommitWrites, claim_writes
from app.persistence.db import IDLE_PING_SECONDS, create_engine, create_sessionmaker
from app.persistence.transaction import transaction
from app.persistence.types import AsyncEngine, AsyncSession, async_sessionmaker
from app.security.egress import EgressAllowList
from app.security.egress.transport import default_tls_context
from app.services.runs.limits import RUN_QUEUES

# Runs send HTTP, speak MCP and check templates. The API loads these clients on first use; the worker
# loads them here, in the main process before the pool forks, so pool processes share one copy and a
# run does not pay the import.
importlib.import_module("app.security.egress.client")
importlib.import_module("app.security.egress.httpx2_bridge")
importlib.import_module("app.engine.templating.filters")
# Likewise the egress clients' TLS context (the CA bundle, ~50 ms of CPU and ~2 MiB to load): built
# once here, each pool process inherits it instead of loading its own at its first outbound call.
default_tls_context()

T = TypeVar("T")

# Set in the worker's main process when its shutdown begins; shared memory made before the pool forks,
# so its pool processes see it too (a stopping worker finishes what it holds and claims nothing more).
_stopping = multiprocessing.RawValue("b", 0)


def _mark_stopping(**_: Any) -> None:
    _stopping.value = 1


def stopping() -> bool:
    """Whether this process's worker has begun to shut down."""
    return bool(_stopping.value)


worker_shutting_down.connect(_mark_stopping, weak=False)


@dataclass
class WorkerRuntime:
    pid: int
    name: str
    core: Runtime
    loop: asyncio.AbstractEventLoop
    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]
    redis: Redis
    publisher: BrokerPublisher
    """Run wake-ups a drain sends itself, on `redis`, coalesced on the run queues."""
    slack: SlackApi
    mail: RelayMail | None
    """The SMTP relay (`mail_port`) when one is configured; both clients are built with the process."""

    def unit_of_work(self) -> AbstractAsyncContextManager[AsyncSession]:
        """A transaction this task owns: committed, then its jobs sent; rolled back on error."""
        return transaction(self.sessionmaker, self.core.send_job)

    def claim_writes(self) -> AbstractAsyncContextManager[AutocommitWrites]:
        """The one connection a run's claim writes through; its wake-ups are sent after the claim."""
        return claim_writes(self.engine, self.core.send_job)


_runtime: WorkerRuntime | None = None


def mail_port(settings: Settings, allow: EgressAllowList) -> RelayMail | None:
    """The SMTP relay of AUTOMATIONS_SMTP_URL from AUTOMATIONS_SMTP_FROM, or None when not configured."""
    if settings.smtp_url is None or not settings.smtp_url.get_secret_value() or not settings.smtp_from:
        return None
    relay = SmtpRelay.parse(settings.smtp_url.get_secret_value())
    return RelayMail(SmtpMailer(relay, settings.smtp_from, allow))


def _send_task(*args: Any, **kwargs: Any) -> Any:
    # Resolved per call: the worker's Celery app is the current one when a task runs.
    return current_app.send_task(*args, **kwargs)


def create_worker_engine(database_url: str, *, transaction_pooler: bool = False) -> AsyncEngine:
    """A worker process's engine. A checkout pings only a connection idle for a while (a busy worker
    would otherwise pay three round trips per checkout) and drops one the driver saw closed."""
    return create_engine(
        database_url,
        pool_size=2,
        application_name="automations-worker",
        ping_after_idle=IDLE_PING_SECONDS,
        transaction_pooler=transaction_pooler,
    )


def runtime() -> WorkerRuntime:
    """This process's runtime; a forked child never reuses its parent's loop or connections."""
    global _runtime
    if _runtime is None or _runtime.pid != os.getpid():
        settings = get_settings()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        engine = create_worker_engine(
            settings.resolved_database_url(), transaction_pooler=settings.behind_transaction_pooler
        )
        sessionmaker = create_sessionmaker(engine)
        redis = Redis.from_url(settings.resolved_redis_url())
        allow = EgressAllowList.parse(settings.egress_allow)
        _runtime = WorkerRuntime(
            pid=os.getpid(),
            name=f"{socket.gethostname()}:{os.getpid()}",
            core=build_runtime(
                settings,
                _send_task,
                sessionmaker,
                QueryRunner(allow, settings.database_statement_timeout_seconds),
            ),
            loop=loop,
            engine=engine,
            sessionmaker=sessionmaker,
            redis=redis,
            publisher=BrokerPublisher(redis, key_prefix=settings.redis_key_prefix, coalesce=RUN_QUEUES),
            slack=SlackApi(settings.slack_api_url, allow),
            mail=mail_port(settings, allow),
        )
    return _runtime


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a task's coroutine on this process's loop."""
    return runtime().loop.run_until_complete(coroutine)


def close_mcp_sessions(**_: Any) -> None:
    """End the MCP sessions this process kept open, so servers see them closed rather than dropped.

    A pool process receives `worker_process_shutdown`; a solo worker runs tasks in its main process and
    receives `worker_shutdown`. Only a runtime this very process built has sessions to close."""
    current = _runtime
    if current is None or current.pid != os.getpid() or current.loop.is_closed() or current.loop.is_running():
        return
    current.loop.run_until_complete(current.core.mcp_sessions.aclose())


worker_process_shutdown.connect(close_mcp_sessions, weak=False)
worker_shutdown.connect(close_mcp_sessions, weak=False)
