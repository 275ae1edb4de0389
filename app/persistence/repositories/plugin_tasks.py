"""Statements over plugin tasks: claiming poller slots and event deliveries once, and recording ends."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Text, cast, delete, func, literal, or_, select, update
from sqlalchemy.dialects.postgresql import insert

from app.persistence.models import DomainEvent, PluginTask, SpacePlugin
from app.persistence.repositories.base import RepositoryBase

OPEN = ("queued", "running")


class PluginTaskRepository(RepositoryBase[PluginTask]):
    model = PluginTask

    async def enabled_switches(self, plugin_ids: Sequence[str]) -> list[SpacePlugin]:
        """The switches that enable one of these plugins, in any space."""
        if not plugin_ids:
            return []
        rows = await self.session.scalars(
            select(SpacePlugin).where(SpacePlugin.plugin_id.in_(plugin_ids), SpacePlugin.enabled)
        )
        return list(rows)

    async def queue(self, rows: list[dict[str, Any]]) -> list[uuid.UUID]:
        """Insert queued tasks; a key already taken is skipped. Answers the ids of the new rows."""
        if not rows:
            return []
        statement = (
            insert(PluginTask)
            .values(rows)
            .on_conflict_do_nothing(index_elements=[PluginTask.key])
            .returning(PluginTask.id)
        )
        return list(await self.session.scalars(statement))

    async def queue_deliveries(
        self,
        plugin_id: str,
        name: str,
        exact: Sequence[str],
        prefixes: Sequence[str],
        since: datetime,
        now: datetime,
        limit: int,
    ) -> list[uuid.UUID]:
        """Queue one delivery per event of a matching type, in a space that enabled the plugin, created
        after it was enabled (and after `since`), that this subscription was not handed yet."""
        key = func.concat(f"event:{plugin_id}:{name}:", cast(DomainEvent.id, Text))
        matches: list[Any] = [DomainEvent.event_type.in_(list(exact))] if exact else []
        matches += [func.starts_with(DomainEvent.event_type, prefix) for prefix in prefixes]
        taken = select(PluginTask.id).where(PluginTask.key == key).exists()
        candidates = (
            select(
                func.gen_random_uuid(),
                DomainEvent.space_id,
                literal(plugin_id),
                literal("subscription"),
                literal(name),
                key,
                DomainEvent.id,
                literal("queued"),
                literal(now),
            )
            .join(
                SpacePlugin,
                (SpacePlugin.space_id == DomainEvent.space_id)
                & (SpacePlugin.plugin_id == plugin_id)
                & SpacePlugin.enabled,
            )
            .where(
                or_(*matches),
                DomainEvent.created_at >= SpacePlugin.enabled_at,
                DomainEvent.created_at >= since,
                ~taken,
            )
            .order_by(DomainEvent.created_at)
            .limit(limit)
        )
        columns = ["id", "space_id", "plugin_id", "kind", "name", "key", "event_id", "status", "created_at"]
        statement = (
            insert(PluginTask)
            .from_select(columns, candidates)
            .on_conflict_do_nothing(index_elements=[PluginTask.key])
            .returning(PluginTask.id)
        )
        return list(await self.session.scalars(statement))

    async def stale_queued(self, before: datetime, limit: int) -> list[uuid.UUID]:
        """Queued tasks whose wake-up seems lost (still queued since before `before`)."""
        rows = await self.session.scalars(
            select(PluginTask.id)
            .where(PluginTask.status == "queued", PluginTask.created_at < before)
            .order_by(PluginTask.created_at)
            .limit(limit)
        )
        return list(rows)

    async def start(self, task_id: uuid.UUID, now: datetime) -> PluginTask | None:
        """Take a queued task (atomic: one taker); None when someone else took it or it ended."""
        statement = (
            update(PluginTask)
            .where(PluginTask.id == task_id, PluginTask.status == "queued")
            .values(status="running", started_at=now)
            .returning(PluginTask)
        )
        return (await self.session.scalars(statement)).one_or_none()

    async def finish(
        self, task_id: uuid.UUID, status: str, error: dict[str, Any] | None, emitted: int, now: datetime
    ) -> None:
        await self.session.execute(
            update(PluginTask)
            .where(PluginTask.id == task_id)
            .values(status=status, error=error, emitted=emitted, finished_at=now)
        )

    async def lose_running(self, before: datetime, now: datetime) -> int:
        """Tasks running since before `before` lost their worker: recorded as lost, never run again."""
        result = await self.session.execute(
            update(PluginTask)
            .where(PluginTask.status == "running", PluginTask.started_at < before)
            .values(
                status="lost",
                finished_at=now,
                error={"code": "worker_lost", "message": "the worker stopped before the task ended"},
            )
        )
        return int(getattr(result, "rowcount", 0) or 0)

    async def delete_before(self, before: datetime) -> None:
        await self.session.execute(
            delete(PluginTask).where(PluginTask.created_at < before, PluginTask.status.not_in(OPEN))
        )

    async def recent(self, space_id: uuid.UUID, plugin_id: str, limit: int) -> list[PluginTask]:
        """The space's newest tasks of one plugin."""
        return await self.get_all(
            self.base_statement()
            .where(PluginTask.space_id == space_id, PluginTask.plugin_id == plugin_id)
            .order_by(PluginTask.created_at.desc(), PluginTask.id.desc())
            .limit(limit)
        )
