"""What this instance can do: every capability, action and trigger with its schemas."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.api.deps import CallerDep, RuntimeDep, SessionDep, SpaceDep
from app.services.automations.catalog import catalog_service

router = APIRouter(tags=["catalog"])


@router.get("/catalog", summary="Every capability, action and trigger, with JSON Schemas and tier")
async def get_catalog(caller: CallerDep, runtime: RuntimeDep) -> dict[str, Any]:
    return await catalog_service.catalog(runtime.capabilities, actions=runtime.actions)


@router.get(
    "/spaces/{space_id}/catalog",
    summary="What this space can use: the shared catalog, its MCP tools and its enabled plugins' entries",
)
async def get_space_catalog(access: SpaceDep, runtime: RuntimeDep, session: SessionDep) -> dict[str, Any]:
    return await catalog_service.catalog(
        runtime.capabilities,
        str(access.space_id),
        actions=runtime.actions,
        plugins=runtime.plugin_source,
        reads=session,
    )
