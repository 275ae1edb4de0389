"""The installed plugins as a space sees them, and switching one on or off (admins)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from app.api.body import JsonBodyRoute
from app.api.deps import RuntimeDep, SessionDep, SpaceDep
from app.api.plugin_schemas import PluginOut, PluginSwitch, PluginTaskOut
from app.registry.plugins.rules import PLUGIN_ID_PATTERN
from app.services.resources.plugin_tasks import plugin_task_service
from app.services.resources.plugins import plugin_service

router = APIRouter(prefix="/spaces/{space_id}/plugins", tags=["plugins"], route_class=JsonBodyRoute)

PluginId = Annotated[
    str, Path(pattern=PLUGIN_ID_PATTERN, description="The plugin's id (its entry point name).")
]


@router.get("", summary="Installed plugins, their registrations, and whether this space enabled them")
async def list_plugins(session: SessionDep, access: SpaceDep, runtime: RuntimeDep) -> list[PluginOut]:
    views = await plugin_service.list(session, access, runtime.plugins)
    return [PluginOut.of(view) for view in views]


@router.get("/{plugin_id}", summary="One installed plugin as this space sees it")
async def get_plugin(
    plugin_id: PluginId, session: SessionDep, access: SpaceDep, runtime: RuntimeDep
) -> PluginOut:
    return PluginOut.of(await plugin_service.get(session, access, runtime.plugins, plugin_id))


@router.put("/{plugin_id}", summary="Enable or disable a plugin in this space (admin)")
async def put_plugin(
    plugin_id: PluginId, body: PluginSwitch, session: SessionDep, access: SpaceDep, runtime: RuntimeDep
) -> PluginOut:
    view = await plugin_service.set_enabled(
        session, access, runtime.plugins, plugin_id, body.enabled, body.settings
    )
    return PluginOut.of(view)


@router.get(
    "/{plugin_id}/tasks", summary="What the plugin's pollers and subscriptions ran here, newest first"
)
async def list_plugin_tasks(
    plugin_id: PluginId,
    session: SessionDep,
    access: SpaceDep,
    runtime: RuntimeDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> list[PluginTaskOut]:
    await plugin_service.get(session, access, runtime.plugins, plugin_id)  # members; 404 for an unknown id
    tasks = await plugin_task_service.recent(session, access.space_id, plugin_id, limit)
    return [PluginTaskOut.model_validate(task) for task in tasks]
