"""The catalog of capabilities, actions and triggers, as the API shows it."""

from __future__ import annotations

from typing import Any

from app.registry import CapabilityResolver, catalog


class CatalogService:
    async def catalog(self, resolver: CapabilityResolver, space_id: str | None = None) -> dict[str, Any]:
        """Everything a space can use (`None`: what every space shares), capabilities from the resolver."""
        return catalog(capabilities=await resolver.for_space(space_id))


catalog_service = CatalogService()
