"""The Celery composition root: queues, routing, beat schedule, reliability settings.

The database is the source of truth; messages only wake workers up. Hence late acks and a
prefetch of one, so a message is not lost with a worker that dies holding it.
"""

from __future__ import annotations

from typing import Any

from celery import Celery
from kombu import Queue  # type: ignore[attr-defined]

from app import metrics
from app.config import Settings, get_settings
from app.config.cores import usable_cores

# `app.services.runs.limits.RUN_QUEUES`, written out: the health probes import this module and the
# run services would double their start-up (tests/test_composition.py checks the two agree).
RUN_QUEUES = ("runs.fast", "runs.medium", "runs.long")
SYSTEM_QUEUE = "system"
ALL_QUEUES = (*RUN_QUEUES, SYSTEM_QUEUE)
# Options of every worker the service starts. Mingle (a start-up exchange of revoked task ids and clocks
# with the other workers) waits a full second for their replies, and nothing here revokes a task.
WORKER_OPTIONS = ("--without-mingle",)


def default_concurrency() -> int:
    """Pool processes of a worker when nothing says how many: two per CPU core it may run on.

    A run spends much of its time waiting for PostgreSQL, an HTTP service or a model, and a pool
    process waiting holds no core; with one process per core the cores idle through those waits. Under
    load beside the API on two cores, four processes completed 42-47% more runs per second than two
    (docs/performance.md)."""
    return 2 * usable_cores()


def create_celery(settings: Settings) -> Celery:
    """A Celery app bound to the settings' Redis; creating it opens no connection."""
    redis_url = settings.resolved_redis_url()
    celery = Celery(
        "automations",
        broker=redis_url,
        backend=redis_url,
        include=["app.worker.tasks", "app.worker.plugin_tasks"],
    )
    celery.conf.update(
        task_queues=[Queue(name) for name in ALL_QUEUES],  # type: ignore[no-untyped-call]
        task_default_queue=SYSTEM_QUEUE,
        task_routes={"system.*": {"queue": SYSTEM_QUEUE}, "events.*": {"queue": SYSTEM_QUEUE}},
        task_acks_late=True,
        task_ignore_result=True,
        worker_prefetch_multiplier=1,
        worker_hijack_root_logger=False,
        broker_connection_retry_on_startup=True,
        broker_transport_options={"visibility_timeout": 3600, "global_keyprefix": settings.redis_key_prefix},
        result_backend_transport_options={"global_keyprefix": settings.redis_key_prefix},
        result_expires=300,
        timezone="UTC",
        beat_schedule={
            "system-tick": {
                "task": "system.tick",
                "schedule": settings.beat_tick_seconds,
                "options": {"expires": 60},
            },
            # Due waits, every second or so: a due-time index read, apart from the slower system tick.
            "wait-tick": {
                "task": "system.wait_tick",
                "schedule": settings.wait_tick_seconds,
                "options": {"expires": 10},
            },
            # Apart from the system tick, so plugin code never delays schedules or recovery.
            "plugin-tick": {
                "task": "system.plugin_tick",
                "schedule": settings.beat_tick_seconds,
                "options": {"expires": 60},
            },
        },
    )
    celery.conf.worker_concurrency = settings.worker_concurrency or default_concurrency()
    metrics.configure(enabled=settings.metrics_enabled)
    return celery


def __getattr__(name: str) -> Any:
    # `celery -A app.worker.celery_app` looks up `app`; build it on demand so importing this
    # module never needs a configured broker.
    if name in {"app", "celery"}:
        return create_celery(get_settings())
    raise AttributeError(name)
