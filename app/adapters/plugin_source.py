"""Plugins as a per-space source of capabilities, actions and event types.

What a plugin registered exists only in the spaces that enabled it. One short read per question tells
which plugins a space enabled (nothing is kept beyond one block of shared reads, so a switch takes effect
at once); an installation without loaded plugins, or an id outside every plugin's namespace, never
reaches the database.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from app.persistence.repositories.plugins import SpacePluginRepository
from app.persistence.shared_reads import read_session, remembered
from app.persistence.types import AsyncSession, async_sessionmaker
from app.registry import ActionDefinition, Capability
from app.registry.plugins import DeclaredEvent, LoadedPlugin, PluginSet


class PluginSource:
    """`CapabilitySource` and `ActionSource` over the loaded plugins a space enabled."""

    def __init__(self, plugins: PluginSet, sessions: async_sessionmaker[AsyncSession]) -> None:
        self.plugins = plugins
        self.sessions = sessions
        self._by_namespace = {plugin.namespace: plugin for plugin in plugins.loaded}

    async def enabled(self, space_id: str | None) -> tuple[LoadedPlugin, ...]:
        """The loaded plugins the space enabled, in id order (none for `None`, the shared view)."""
        if space_id is None or not self._by_namespace:
            return ()
        space = uuid.UUID(space_id)
        # Actions, capabilities and event types each ask: read once within a block of shared reads.
        ids = await remembered(("enabled_plugins", space), lambda: self._enabled_ids(space))
        return tuple(plugin for plugin in self.plugins.loaded if plugin.id in ids)

    async def _enabled_ids(self, space: uuid.UUID) -> set[str]:
        async with read_session(self.sessions) as session:
            return await SpacePluginRepository(session).enabled_ids(space)

    async def capabilities(self, space_id: str | None) -> Sequence[Capability]:
        return [capability for plugin in await self.enabled(space_id) for capability in plugin.capabilities]

    async def get(self, space_id: str | None, capability_id: str) -> Capability | None:
        plugin = self._by_namespace.get(capability_id.split(".", 1)[0])
        if plugin is None or plugin not in await self.enabled(space_id):
            return None
        return next((c for c in plugin.capabilities if c.id == capability_id), None)

    async def actions(self, space_id: str | None) -> Sequence[ActionDefinition]:
        return [action for plugin in await self.enabled(space_id) for action in plugin.actions]

    async def events(self, space_id: str | None) -> Sequence[DeclaredEvent]:
        """The event types the space's enabled plugins emit."""
        return [event for plugin in await self.enabled(space_id) for event in plugin.events]
