"""Request and response bodies of the plugin routes."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, StrictBool

from app.api.schemas import Body
from app.services.resources.plugins import SpacePluginView


class PluginSwitch(Body):
    enabled: StrictBool = Field(description="true: the space may use the plugin's names; false: it may not.")
    settings: dict[str, Any] | None = Field(
        default=None,
        description=(
            "Replaces what the space configured for the plugin (checked against its settings schema; "
            "never secrets: settings are shown in answers). Omitted: kept."
        ),
    )


class PluginPollerOut(BaseModel):
    name: str
    every_seconds: float


class PluginSubscriptionOut(BaseModel):
    name: str
    event_types: list[str]


class PluginTaskOut(BaseModel):
    id: uuid.UUID
    kind: Literal["poller", "subscription"]
    name: str
    status: str = Field(description="queued, running, succeeded, failed, timed_out, skipped or lost.")
    event_id: uuid.UUID | None = Field(description="The event a subscription was handed.")
    emitted: int = Field(description="Events the call emitted.")
    error: dict[str, Any] | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None

    model_config = {"from_attributes": True}


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
    pollers: list[PluginPollerOut] = Field(default_factory=list)
    subscriptions: list[PluginSubscriptionOut] = Field(default_factory=list)
    settings_schema: dict[str, Any] | None = Field(default=None, description="What `settings` may hold.")


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
    settings: dict[str, Any] = Field(description="What this space configured for the plugin.")
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
                pollers=[
                    PluginPollerOut(name=p.name, every_seconds=p.every_seconds)
                    for p in (plugin.pollers if plugin is not None else ())
                ],
                subscriptions=[
                    PluginSubscriptionOut(name=sub.name, event_types=list(sub.event_types))
                    for sub in (plugin.subscriptions if plugin is not None else ())
                ],
                settings_schema=plugin.settings_schema if plugin is not None else None,
            ),
            settings=view.settings,
            updated_at=view.updated_at,
        )
