"""Plugin pollers and subscriptions: queued by beat's plugin tick, each run once, bounded and recorded.

The tick decides what is due and writes it as `plugin_tasks` rows whose unique key is the idempotency
key: `poll:<plugin>:<poller>:<space>:<slot>` (the slot is the number of the poller's period since the
epoch) and `event:<plugin>:<subscription>:<event id>`. Whoever inserts a key first owns that run, so
several beats or workers never run one slot or hand one event over twice. Rows are the truth; the broker
message only wakes a worker (a queued row whose message was lost is sent again).

A run gets a `PluginContext` for its space (egress-guarded HTTP, the plugin's own emitter, the space's
settings for the plugin), is cut at its bound, and ends as `succeeded`, `failed`, `timed_out` or
`skipped`; a worker that dies mid-run leaves it `lost`, and it is not run again (at most once).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app import jobs
from app.definitions.signals import StepError
from app.persistence.base import utcnow
from app.persistence.models import DomainEvent, PluginTask
from app.persistence.repositories.plugin_tasks import PluginTaskRepository
from app.persistence.repositories.plugins import SpacePluginRepository
from app.persistence.transaction import UnitOfWork
from app.persistence.types import AsyncSession
from app.registry.plugins import LoadedPlugin, PluginContext, PluginEvents, PluginHttp, PluginSet
from app.registry.plugins.background import Poller, Subscription
from app.registry.ports import HttpPort
from app.services.triggers.events import event_service

logger = logging.getLogger("app.plugins")

RUN_TASK = "system.plugin_task"
# A queued task whose wake-up has not started it after this long gets another.
REQUEUE_AFTER = timedelta(seconds=30)
# Past its bound by this much, a running task's worker is taken for dead.
LOST_GRACE = timedelta(seconds=60)
# Event deliveries one tick queues per subscription at most (the rest wait for the next tick).
DELIVERY_BATCH = 500
# How far back each tick looks for events not handed over yet: ticks come seconds apart, so an hour
# covers a beat restart while keeping each tick's scan to the last hour of events.
DELIVERY_LOOKBACK = timedelta(hours=1)
TASK_RETENTION = timedelta(days=7)


@dataclass(frozen=True)
class TaskSettings:
    http: HttpPort
    timeout_seconds: float
    max_chain_depth: int


class TaskEvents:
    """The emitter's port for a poller or subscription: each event its own transaction, in the task's
    space, one chain step deeper than what started the task; counts what was emitted."""

    def __init__(self, unit_of_work: UnitOfWork, space_id: uuid.UUID, chain_depth: int) -> None:
        self.unit_of_work = unit_of_work
        self.space_id = space_id
        self.chain_depth = chain_depth
        self.emitted = 0

    async def publish(self, event_type: str, payload: dict[str, Any], *, source_id: str) -> str:
        async with self.unit_of_work() as session:
            event = await event_service.publish(
                session, self.space_id, event_type, payload, source_id, chain_depth=self.chain_depth
            )
        self.emitted += 1
        return str(event.id)


def _active(plugins: PluginSet) -> list[LoadedPlugin]:
    return [plugin for plugin in plugins.loaded if plugin.pollers or plugin.subscriptions]


def _event_dict(event: DomainEvent) -> dict[str, Any]:
    return {
        "id": str(event.id),
        "type": event.event_type,
        "source_id": event.source_id,
        "payload": event.payload,
        "occurred_at": event.created_at.isoformat(),
    }


class PluginTaskService:
    async def tick(
        self, session: AsyncSession, plugins: PluginSet, now: datetime, task_seconds: float
    ) -> int:
        """Queue due poller slots and undelivered events; wake lost ones; answers how many were queued."""
        active = _active(plugins)
        if not active:
            return 0
        repository = PluginTaskRepository(session)
        switches = await repository.enabled_switches([plugin.id for plugin in active])
        by_id = {plugin.id: plugin for plugin in active}
        rows = [
            self._slot(switch.space_id, by_id[switch.plugin_id], poller, now)
            for switch in switches
            for poller in by_id[switch.plugin_id].pollers
        ]
        queued = await repository.queue(rows)
        subscribed = {switch.plugin_id for switch in switches}
        for plugin in active:
            if plugin.id not in subscribed:
                continue
            for subscription in plugin.subscriptions:
                queued += await repository.queue_deliveries(
                    plugin.id,
                    subscription.name,
                    subscription.exact,
                    subscription.prefixes,
                    since=now - DELIVERY_LOOKBACK,
                    now=now,
                    limit=DELIVERY_BATCH,
                )
        stale = await repository.stale_queued(now - REQUEUE_AFTER, limit=DELIVERY_BATCH)
        for task_id in dict.fromkeys([*queued, *stale]):
            jobs.enqueue(RUN_TASK, str(task_id), queue="system")
        await repository.lose_running(now - timedelta(seconds=task_seconds) - LOST_GRACE, now)
        await repository.delete_before(now - TASK_RETENTION)
        return len(queued)

    def _slot(
        self, space_id: uuid.UUID, plugin: LoadedPlugin, poller: Poller, now: datetime
    ) -> dict[str, Any]:
        slot = int(now.timestamp() // poller.every_seconds)
        return {
            "id": uuid.uuid4(),
            "space_id": space_id,
            "plugin_id": plugin.id,
            "kind": "poller",
            "name": poller.name,
            "key": f"poll:{plugin.id}:{poller.name}:{space_id}:{slot}",
            "status": "queued",
            "created_at": now,
        }

    async def run(
        self, unit_of_work: UnitOfWork, task_id: uuid.UUID, plugins: PluginSet, settings: TaskSettings
    ) -> str:
        """Take one queued task and run it to its end; answers its final status (or `not_taken`)."""
        async with unit_of_work() as session:
            task = await PluginTaskRepository(session).start(task_id, utcnow())
            if task is None:
                return "not_taken"
            switch = await SpacePluginRepository(session).get(task.space_id, task.plugin_id)
            event = await session.get(DomainEvent, task.event_id) if task.event_id is not None else None
            space_settings = dict(switch.settings or {}) if switch is not None else {}
            enabled = switch is not None and switch.enabled
            event_data = _event_dict(event) if event is not None else None
            depth = event.chain_depth if event is not None else 0
        status, error, emitted = await self._execute(
            unit_of_work, task, plugins, settings, enabled, space_settings, event_data, depth
        )
        async with unit_of_work() as session:
            await PluginTaskRepository(session).finish(task_id, status, error, emitted, utcnow())
        return status

    async def _execute(
        self,
        unit_of_work: UnitOfWork,
        task: PluginTask,
        plugins: PluginSet,
        settings: TaskSettings,
        enabled: bool,
        space_settings: dict[str, Any],
        event: dict[str, Any] | None,
        depth: int,
    ) -> tuple[str, dict[str, Any] | None, int]:
        report = plugins.get(task.plugin_id)
        plugin = report.plugin if report is not None else None
        if not enabled or plugin is None:
            return "skipped", {"code": "plugin_disabled", "message": "the plugin is off in this space"}, 0
        work = self._work(plugin, task, event)
        if work is None:
            message = f"plugin {plugin.id!r} no longer registers {task.kind} {task.name!r}"
            return "skipped", {"code": "unknown_plugin_task", "message": message}, 0
        if task.kind == "subscription" and depth >= settings.max_chain_depth:
            message = f"the event is {depth} chain steps deep (AUTOMATIONS_MAX_CHAIN_DEPTH)"
            return "skipped", {"code": "chain_depth_exceeded", "message": message}, 0
        bound = settings.timeout_seconds
        if isinstance(work, Poller):
            bound = min(bound, work.every_seconds)
        port = TaskEvents(unit_of_work, task.space_id, depth + 1 if event is not None else 0)
        declared = {declared.type: declared for declared in plugin.events}
        ctx = PluginContext(
            plugin_id=plugin.id,
            space_id=str(task.space_id),
            http=PluginHttp(settings.http, bound),
            events=PluginEvents(plugin.id, declared, port),
            settings=space_settings,
        )
        call = work.fn(ctx) if isinstance(work, Poller) else work.fn(ctx, event or {})
        try:
            await asyncio.wait_for(call, timeout=bound)
        except TimeoutError:
            message = f"{task.kind} {task.name!r} of plugin {plugin.id!r} ran past its {bound:g} s bound"
            return "timed_out", {"code": "plugin_task_timeout", "message": message}, port.emitted
        except StepError as exc:
            return "failed", {"code": exc.code, "message": exc.message}, port.emitted
        except Exception as exc:
            logger.exception(
                "plugin %r: %s %s raised %s", plugin.id, task.kind, task.name, type(exc).__name__
            )
            message = f"{task.kind} {task.name!r} failed inside plugin {plugin.id!r} ({type(exc).__name__})"
            return (
                "failed",
                {"code": "plugin_error", "message": message + "; details are in the log"},
                port.emitted,
            )
        return "succeeded", None, port.emitted

    def _work(
        self, plugin: LoadedPlugin, task: PluginTask, event: dict[str, Any] | None
    ) -> Poller | Subscription | None:
        if task.kind == "poller":
            return next((p for p in plugin.pollers if p.name == task.name), None)
        found = next((s for s in plugin.subscriptions if s.name == task.name), None)
        return found if found is not None and event is not None and found.hears(event["type"]) else None

    async def recent(
        self, session: AsyncSession, space_id: uuid.UUID, plugin_id: str, limit: int
    ) -> list[PluginTask]:
        """The newest pollers' and subscriptions' runs of one plugin in a space."""
        return await PluginTaskRepository(session).recent(space_id, plugin_id, limit)


plugin_task_service = PluginTaskService()
