"""Thin Celery tasks: open the runtime, call a service, nothing else."""

from __future__ import annotations

import socket
from datetime import UTC, datetime

from celery import shared_task

from app.services.health import database_status, record_beat_tick
from app.worker.runtime import run, runtime


@shared_task(name="system.tick")  # type: ignore[untyped-decorator]
def tick() -> str:
    """Beat's periodic tick. Later work (due schedules, recovery, sweepers) hangs off it."""
    return run(record_beat_tick(runtime().redis, datetime.now(UTC)))


@shared_task(name="system.ping", ignore_result=False)  # type: ignore[untyped-decorator]
def ping() -> dict[str, str]:
    """Answer with the worker's host name and whether it reaches the database.

    `automations check` sends one per queue: a worker that reaches Redis but not PostgreSQL is a
    common misconfiguration, and it shows here rather than as stuck runs.
    """
    return {"pong": socket.gethostname(), "database": run(database_status(runtime().engine))}
