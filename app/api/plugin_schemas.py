"""Request and response bodies of the plugin routes."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, StrictBool

from app.api.schemas import Body
from app.services.plugins import SpacePluginView


class PluginSwitch(Body):
    enabled: StrictBool = Field(description="true: the space may use the plugin's names; false: it may not.")


class PluginTriggerOut(BaseModel):
    type: str = Field(description="The event type an `event` trigger subscribes to.")
    description: str
    payload_schema: dict[str, Any]


class PluginEntryOut(BaseModel):
    id: str = Field(description="The capability id or action type a definition names.")
    description: str
    risk: Literal["read", "write"]


class PluginRegistrations(BaseModel):
    triggers: list[PluginTriggerOut]
    actions: list[PluginEntryOut]
    tools: list[PluginEntryOut]


class PluginOut(BaseModel):
    id: str
    state: Literal["enabled", "disabled", "error", "not_allowed"] = Field(
        description=(
            "enabled / disabled in this space for a loaded plugin; error when the installation refused it "
            "(see `error`); not_allowed when AUTOMATIONS_PLUGINS does not list it."
        )
    )
    enabled: bool
    version: str | None
    namespace: str | None = Field(description="The first segment of every name it registered.")
    packages: list[str] = Field(description="The installed packages that provide this plugin id.")
    error: str | None
    registrations: PluginRegistrations
    updated_at: datetime | None = Field(description="When the space last switched it.")

    @classmethod
    def of(cls, view: SpacePluginView) -> PluginOut:
        plugin = view.report.plugin
        capabilities = {c.id: c for c in plugin.capabilities} if plugin is not None else {}
        return cls(
            id=view.report.id,
            state=view.state,
            enabled=view.enabled,
            version=view.report.version,
            namespace=plugin.namespace if plugin is not None else None,
            packages=list(view.report.packages),
            error=view.report.error,
            registrations=PluginRegistrations(
                triggers=[
                    PluginTriggerOut(type=e.type, description=e.description, payload_schema=e.payload_schema)
                    for e in (plugin.events if plugin is not None else ())
                ],
                actions=[
                    PluginEntryOut(id=a.type, description=a.description, risk=capabilities[a.type].risk)
                    for a in (plugin.actions if plugin is not None else ())
                ],
                tools=[
                    PluginEntryOut(id=t, description=capabilities[t].description, risk=capabilities[t].risk)
                    for t in (plugin.tools if plugin is not None else ())
                ],
            ),
            updated_at=view.updated_at,
        )
