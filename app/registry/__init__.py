"""Registries: the names a definition may use, resolved to code.

Importing `app.registry` registers the built-ins (the schedule, webhook and event triggers and the
`transform_data` action); there is no separate loading step. Other modules register their own
capabilities and actions when imported.
"""

from app.registry.action_resolver import ActionResolver, Actions, ActionSet, ActionSource, RegistryActions
from app.registry.base import InvalidEntry, Registry, RegistryConflict, RegistryError, UnknownEntry
from app.registry.catalog import catalog
from app.registry.core_events import CoreEvent
from app.registry.factories import capability_action
from app.registry.models import (
    DYNAMIC_OUTPUT,
    NO_SECRET_FIELDS,
    ActionDefinition,
    ArtifactSpec,
    Capability,
    DynamicOutput,
    Handler,
    SecretFields,
    TriggerDefinition,
)
from app.registry.ports import HandlerContext
from app.registry.registries import actions, capabilities, core_events, register_core_event, triggers
from app.registry.resolver import (
    Capabilities,
    CapabilityRecheck,
    CapabilityResolver,
    CapabilitySet,
    CapabilitySource,
    NoRecheck,
    RegistrySource,
)

__all__ = [
    "DYNAMIC_OUTPUT",
    "NO_SECRET_FIELDS",
    "ActionDefinition",
    "ActionResolver",
    "ActionSet",
    "ActionSource",
    "Actions",
    "ArtifactSpec",
    "Capabilities",
    "Capability",
    "CapabilityRecheck",
    "CapabilityResolver",
    "CapabilitySet",
    "CapabilitySource",
    "CoreEvent",
    "DynamicOutput",
    "Handler",
    "HandlerContext",
    "InvalidEntry",
    "NoRecheck",
    "Registry",
    "RegistryActions",
    "RegistryConflict",
    "RegistryError",
    "RegistrySource",
    "SecretFields",
    "TriggerDefinition",
    "UnknownEntry",
    "actions",
    "capabilities",
    "capability_action",
    "catalog",
    "core_events",
    "register_core_event",
    "triggers",
]
