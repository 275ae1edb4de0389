"""The process-wide registries, with the built-in definitions registered when this module loads.

Modules that contribute capabilities or actions register them when they are imported; registration is
idempotent, so importing them again (or registering an equal definition twice) changes nothing.
"""

from __future__ import annotations

from app.registry.base import Registry
from app.registry.builtin_actions import BUILTIN_ACTIONS
from app.registry.builtin_capabilities import BUILTIN_CAPABILITIES
from app.registry.builtin_databases import DATABASE_QUERY
from app.registry.builtin_delivery import DELIVERY_ACTIONS, DELIVERY_CAPABILITIES
from app.registry.builtin_document_events import DOCUMENT_EVENTS
from app.registry.builtin_events import BUILTIN_EVENTS
from app.registry.builtin_knowledge import KNOWLEDGE_ACTIONS, KNOWLEDGE_CAPABILITIES
from app.registry.builtin_kv import KV_ACTIONS, KV_CAPABILITIES
from app.registry.builtin_triggers import BUILTIN_TRIGGERS
from app.registry.builtin_waits import WAIT_ACTIONS
from app.registry.core_events import CoreEvent
from app.registry.models import ActionDefinition, Capability, TriggerDefinition

capabilities: Registry[Capability] = Registry("capability", Capability, lambda item: item.id)
actions: Registry[ActionDefinition] = Registry("action", ActionDefinition, lambda item: item.type)
triggers: Registry[TriggerDefinition] = Registry("trigger", TriggerDefinition, lambda item: item.type)
core_events: Registry[CoreEvent] = Registry("event", CoreEvent, lambda item: item.type)

for _capability in (*BUILTIN_CAPABILITIES, *DELIVERY_CAPABILITIES, *KV_CAPABILITIES, *KNOWLEDGE_CAPABILITIES):
    capabilities.register(_capability)
for _action in (
    *BUILTIN_ACTIONS,
    *DELIVERY_ACTIONS,
    DATABASE_QUERY,
    *KV_ACTIONS,
    *KNOWLEDGE_ACTIONS,
    *WAIT_ACTIONS,
):
    actions.register(_action)
for _trigger in BUILTIN_TRIGGERS:
    triggers.register(_trigger)
for _event in (*BUILTIN_EVENTS, *DOCUMENT_EVENTS):
    core_events.register(_event)


def register_core_event(event: CoreEvent) -> CoreEvent:
    """Publish one of the core's event types in the catalog (e.g. a module's `document.added`).

    Call it when the module that emits the type is imported; registering an equal event again is a
    no-op, another definition under a taken type a `RegistryConflict`.
    """
    return core_events.register(event)


def native_namespaces() -> frozenset[str]:
    """First segments of the core's capability ids, action and trigger types: no plugin may take one."""
    names = (
        [item.id for item in capabilities]
        + [item.type for item in actions]
        + [item.type for item in triggers]
        + [item.type for item in core_events]
    )
    return frozenset(name.split(".", 1)[0] for name in names)
