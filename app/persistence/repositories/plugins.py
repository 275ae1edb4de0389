"""Statements over a space's plugin switches."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from app.persistence.models import SpacePlugin
from app.persistence.repositories.base import RepositoryBase


class SpacePluginRepository(RepositoryBase[SpacePlugin]):
    model = SpacePlugin

    async def enabled_ids(self, space_id: uuid.UUID) -> set[str]:
        """The plugin ids the space switched on."""
        rows = await self.session.scalars(
            select(SpacePlugin.plugin_id).where(SpacePlugin.space_id == space_id, SpacePlugin.enabled)
        )
        return set(rows)

    async def for_space(self, space_id: uuid.UUID) -> dict[str, SpacePlugin]:
        """Every switch of the space, by plugin id."""
        rows = await self.get_all(self.base_statement().where(SpacePlugin.space_id == space_id))
        return {row.plugin_id: row for row in rows}

    async def get(self, space_id: uuid.UUID, plugin_id: str) -> SpacePlugin | None:
        return await self.session.get(SpacePlugin, (space_id, plugin_id))
