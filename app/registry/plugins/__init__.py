"""Plugins: installed packages that add namespaced triggers, actions and tools (docs/plugins.md)."""

from app.registry.plugins.context import (
    DeclaredEvent,
    PluginContext,
    PluginEvents,
    PluginHttp,
    PluginResponse,
)
from app.registry.plugins.loader import PluginReport, PluginSet, PluginStatus, load_plugins
from app.registry.plugins.registrar import LoadedPlugin, Registrar
from app.registry.plugins.rules import (
    ENTRY_POINT_GROUP,
    MAX_ACTIONS,
    MAX_DESCRIPTION_CHARS,
    MAX_RESULT_BYTES,
    MAX_TOOLS,
    MAX_TRIGGERS,
    PluginRefused,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "MAX_ACTIONS",
    "MAX_DESCRIPTION_CHARS",
    "MAX_RESULT_BYTES",
    "MAX_TOOLS",
    "MAX_TRIGGERS",
    "DeclaredEvent",
    "LoadedPlugin",
    "PluginContext",
    "PluginEvents",
    "PluginHttp",
    "PluginRefused",
    "PluginReport",
    "PluginResponse",
    "PluginSet",
    "PluginStatus",
    "Registrar",
    "load_plugins",
]
