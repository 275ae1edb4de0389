"""Statements over a space's plugin switches."""

from __future__ import annotations

import uuid

from sqlalchemy import bindparam, select

from app.persistence.models import SpacePlugin
from app.persistence.repositories.base import RepositoryBase

# Read each time a space's definition is checked (`app.services.automations.vocabulary`): built once,
# its values bound at execution, since building a statement costs SQLAlchemy more CPU than running it.
_ENABLED_IDS = select(SpacePlugin.plugin_id).where(
    SpacePlugin.space_id == bindparam("space_id"), SpacePlugin.enabled
)


class SpacePluginRepository(RepositoryBase[SpacePlugin]):
    model = SpacePlugin

    async def enabled_ids(self, space_id: uuid.UUID) -> set[str]:
        """The plugin ids the space switched on."""
        rows = await self.session.scalars(_ENABLED_IDS, {"space_id": space_id})
        return set(rows)

    async def for_space(self, space_id: uuid.UUID) -> dict[str, SpacePlugin]:
        """Every switch of the space, by plugin id."""
        rows = await self.get_all(self.base_statement().where(SpacePlugin.space_id == space_id))
        return {row.plugin_id: row for row in rows}

    async def get(self, space_id: uuid.UUID, plugin_id: str) -> SpacePlugin | None:
        return await self.session.get(SpacePlugin, (space_id, plugin_id))
