"""The catalog of registered capabilities, actions and triggers, as the API shows it."""

from __future__ import annotations

from typing import Any

from app.registry import catalog


class CatalogService:
    def catalog(self) -> dict[str, Any]:
        """Native entries now; MCP and plugin tiers join the same listing when they exist."""
        return catalog()


catalog_service = CatalogService()
