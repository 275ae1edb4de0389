"""Thin Celery tasks for plugin pollers and subscriptions (app.services.resources.plugin_tasks)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from celery import shared_task

from app.integrations.http import GuardedHttp
from app.services.resources.plugin_tasks import TaskSettings, plugin_task_service
from app.worker.runtime import run, runtime


async def _plugin_tick() -> int:
    worker = runtime()
    async with worker.unit_of_work() as session:
        return await plugin_task_service.tick(
            session,
            worker.core.plugins,
            datetime.now(UTC),
            worker.core.settings.plugin_task_timeout_seconds,
        )


@shared_task(name="system.plugin_tick")  # type: ignore[untyped-decorator]
def plugin_tick() -> int:
    """Beat's plugin tick: queue due poller slots and undelivered events of enabled plugins."""
    return run(_plugin_tick())


async def _plugin_task(task_id: str) -> str:
    worker = runtime()
    settings = TaskSettings(
        http=GuardedHttp(worker.core.egress_allow),
        timeout_seconds=worker.core.settings.plugin_task_timeout_seconds,
        max_chain_depth=worker.core.settings.max_chain_depth,
    )
    return await plugin_task_service.run(
        worker.unit_of_work, uuid.UUID(task_id), worker.core.plugins, settings
    )


@shared_task(name="system.plugin_task")  # type: ignore[untyped-decorator]
def plugin_task(task_id: str) -> str:
    """Run one queued poller slot or event delivery; the claim on its row decides whether it runs."""
    return run(_plugin_task(task_id))
