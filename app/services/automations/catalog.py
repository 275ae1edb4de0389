"""The catalog of capabilities, actions, triggers and plugin event types, as the API shows it."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any, Protocol

from app.persistence.shared_reads import shared_reads
from app.persistence.types import AsyncSession
from app.registry import ActionResolver, CapabilityResolver, catalog
from app.registry import actions as native_actions
from app.registry.plugins import DeclaredEvent


class PluginEvents(Protocol):
    """The event types of the plugins a space enabled (the plugin source answers it)."""

    async def events(self, space_id: str | None) -> Sequence[DeclaredEvent]: ...


class CatalogService:
    async def catalog(
        self,
        resolver: CapabilityResolver,
        space_id: str | None = None,
        *,
        actions: ActionResolver | None = None,
        plugins: PluginEvents | None = None,
        reads: AsyncSession | None = None,
    ) -> dict[str, Any]:
        """Everything a space can use (`None`: what every space shares): capabilities from the resolver,
        actions from the action resolver, and the event types of the plugins the space enabled; read
        through `reads`, the request's session, when given (`shared_reads`)."""
        block: AbstractAsyncContextManager[None] = shared_reads(reads) if reads is not None else nullcontext()
        async with block:
            return catalog(
                capabilities=await resolver.for_space(space_id),
                actions=await actions.for_space(space_id) if actions is not None else native_actions,
                events=await plugins.events(space_id) if plugins is not None else (),
            )


catalog_service = CatalogService()
