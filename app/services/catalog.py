"""The catalog of capabilities, actions, triggers and plugin event types, as the API shows it."""

from __future__ import annotations

from typing import Any

from app.registry import ActionResolver, CapabilityResolver, catalog
from app.registry import actions as native_actions
from app.services.plugin_source import PluginSource


class CatalogService:
    async def catalog(
        self,
        resolver: CapabilityResolver,
        space_id: str | None = None,
        *,
        actions: ActionResolver | None = None,
        plugins: PluginSource | None = None,
    ) -> dict[str, Any]:
        """Everything a space can use (`None`: what every space shares): capabilities from the resolver,
        actions from the action resolver, and the event types of the plugins the space enabled."""
        return catalog(
            capabilities=await resolver.for_space(space_id),
            actions=await actions.for_space(space_id) if actions is not None else native_actions,
            events=await plugins.events(space_id) if plugins is not None else (),
        )


catalog_service = CatalogService()
