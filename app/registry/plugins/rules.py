"""The rules a plugin lives by: its id, the namespace of its names, and its caps.

A plugin's id is the name of its entry point. Every trigger, action and tool it registers is written
`<namespace>.<name>`, the namespace being the id with hyphens as underscores, so its names fit the
dotted id rules of `app.registry.models` and can never be a core name or another plugin's.
"""

from __future__ import annotations

import re

from app.registry.models import MAX_ID_LENGTH, RESERVED_FIRST_SEGMENTS

ENTRY_POINT_GROUP = "automations.plugins"
PLUGIN_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,98}[a-z0-9]$"
NAME_PATTERN = r"^[a-z][a-z0-9_]*[a-z0-9]$"

MAX_TRIGGERS = 50
MAX_ACTIONS = 50
MAX_TOOLS = 20
MAX_DESCRIPTION_CHARS = 500
MAX_RESULT_BYTES = 256 * 1024
MAX_HTTP_RESPONSE_BYTES = 10 * 1024 * 1024
MAX_HTTP_SECONDS = 60.0

# Event namespaces the service itself publishes in: a plugin named after one could fake its events.
SERVICE_EVENT_NAMESPACES = frozenset({"automation", "approval"})

_PLUGIN_ID = re.compile(PLUGIN_ID_PATTERN)
_NAME = re.compile(NAME_PATTERN)


class PluginRefused(Exception):
    """A plugin that cannot be loaded: bad id, import error, broken setup, cap exceeded, bad registration."""


def check_plugin_id(value: object) -> str:
    """The plugin id, or `PluginRefused` when it breaks the id pattern."""
    if not isinstance(value, str) or not _PLUGIN_ID.fullmatch(value):
        raise PluginRefused(
            f"plugin id {value!r} must match {PLUGIN_ID_PATTERN} (lowercase letters, digits, _ and -)"
        )
    return value


def namespace_of(plugin_id: str, reserved: frozenset[str] = frozenset()) -> str:
    """The first segment of every name the plugin registers: its id with hyphens as underscores.

    An id that starts with a digit has no namespace (an id segment starts with a letter), and a
    namespace that a tier, a core capability or action, or the service's own events use is refused.
    """
    namespace = plugin_id.replace("-", "_")
    if not namespace[0].isalpha():
        raise PluginRefused(
            f"plugin id {plugin_id!r} must start with a letter: its names are written {namespace}.<name>"
        )
    taken = reserved | RESERVED_FIRST_SEGMENTS | SERVICE_EVENT_NAMESPACES
    if namespace in taken:
        raise PluginRefused(
            f"plugin id {plugin_id!r} would write its names as {namespace}.<name>, "
            f"a namespace the service itself uses"
        )
    return namespace


def qualified_name(namespace: str, kind: str, name: object) -> str:
    """`<namespace>.<name>` for a registered trigger, action or tool; `PluginRefused` for a bad name."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise PluginRefused(
            f"{kind} name {name!r} must match {NAME_PATTERN} "
            "(lowercase letters, digits and _, starting with a letter)"
        )
    full = f"{namespace}.{name}"
    if len(full) > MAX_ID_LENGTH:
        raise PluginRefused(f"{kind} name {full!r} is longer than {MAX_ID_LENGTH} characters")
    return full


def short_description(kind: str, value: object) -> str:
    """The description, cut to `MAX_DESCRIPTION_CHARS`; `PluginRefused` when there is none."""
    if not isinstance(value, str) or not value.strip():
        raise PluginRefused(f"{kind}: description must be a non-empty string")
    return value.strip()[:MAX_DESCRIPTION_CHARS]
