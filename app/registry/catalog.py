"""The catalog: everything registered, as JSON, for `GET /api/v1/catalog` and the drafting LLM."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

from app.registry import registries
from app.registry.base import Registry
from app.registry.builtin_events import CORE_EVENTS, CoreEvent
from app.registry.models import ActionDefinition, Capability, TriggerDefinition
from app.registry.plugins import DeclaredEvent


def _origin(plugin: str | None) -> dict[str, Any]:
    """The plugin id of a plugin's entry (other tiers' entries carry no such key)."""
    return {"plugin": plugin} if plugin is not None else {}


def _capability(item: Capability) -> dict[str, Any]:
    return {
        "id": item.id,
        "tier": item.tier,
        **_origin(item.plugin),
        "description": item.description,
        "risk": item.risk,
        "input_schema": copy.deepcopy(item.input_schema),
        "output_schema": copy.deepcopy(item.output_schema),
    }


def _action(item: ActionDefinition) -> dict[str, Any]:
    return {
        "type": item.type,
        "tier": item.tier,
        **_origin(item.plugin),
        "name": item.name,
        "description": item.description,
        "config_schema": copy.deepcopy(item.config_schema),
        "dynamic_output": item.output_schema is None,
        "output_schema": copy.deepcopy(item.output_schema),
        "uses_capabilities": list(item.uses_capabilities),
        "produces_artifacts": [
            {"kind": spec.kind, "retention": spec.retention, "visibility": spec.visibility}
            for spec in item.produces_artifacts
        ],
        "duration_class": item.duration_class,
    }


def _trigger(item: TriggerDefinition) -> dict[str, Any]:
    return {
        "type": item.type,
        "tier": item.tier,
        "description": item.description,
        "config_schema": copy.deepcopy(item.config_schema),
        "payload_schema": copy.deepcopy(item.payload_schema),
    }


def _event(item: DeclaredEvent) -> dict[str, Any]:
    return {
        "type": item.type,
        "tier": "plugin",
        "plugin": item.plugin_id,
        "description": item.description,
        "payload_schema": copy.deepcopy(item.payload_schema),
    }


def _core_event(item: CoreEvent) -> dict[str, Any]:
    return {
        "type": item.type,
        "tier": "native",
        "description": item.description,
        "payload_schema": copy.deepcopy(item.payload_schema),
    }


def catalog(
    *,
    capabilities: Iterable[Capability] = registries.capabilities,
    actions: Iterable[ActionDefinition] = registries.actions,
    triggers: Registry[TriggerDefinition] = registries.triggers,
    events: Sequence[DeclaredEvent] = (),
) -> dict[str, Any]:
    """Every capability, action and trigger with its JSON Schemas (never its handler), sorted by id.

    `capabilities` is what one space can call (the resolver's `CapabilitySet`); the default, the
    native registry alone, is what every space shares.

    The answer is a fresh JSON-serialisable structure: callers may change it freely.
    `dynamic_output: true` marks an action whose steps declare their own `output_schema`
    (its `output_schema` here is then null). `events` are the event types plugins the space enabled
    emit; the answer lists them with the core's own (`document.*`, tier `native`): an `event` trigger
    subscribes to either.
    """
    return {
        "capabilities": [_capability(item) for item in sorted(capabilities, key=lambda item: item.id)],
        "actions": [_action(item) for item in sorted(actions, key=lambda item: item.type)],
        "triggers": [_trigger(item) for item in sorted(triggers, key=lambda item: item.type)],
        "events": sorted(
            [*(_core_event(item) for item in CORE_EVENTS), *(_event(item) for item in events)],
            key=lambda entry: str(entry["type"]),
        ),
    }
