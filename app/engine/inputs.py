"""Inputs of a run: the payload, completed by the inputs schema's defaults, some resolved at fire time.

Three defaults are tokens resolved when a run fires rather than literal values:
`$last_fired_at` (the trigger's previous fire, ISO 8601), `$creator` (the automation's creator id) and
`$space_default` (the space's configured default for an input of that name).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

_TOKEN = re.compile(r"^\$[a-z_]+$")
SPACE_DEFAULT = "$space_default"
SPACE_DEFAULT_MISSING = "space_default_missing"


def is_runtime_token(value: Any) -> bool:
    """A string shaped like a runtime default token (known or not)."""
    return isinstance(value, str) and _TOKEN.match(value) is not None


@dataclass(frozen=True)
class FireContext:
    """What the dispatcher knows when a run fires, for resolving runtime defaults."""

    last_fired_at: str | None = None
    creator: str | None = None
    space_defaults: Mapping[str, Any] = field(default_factory=dict)


def resolve_inputs(
    schema: Mapping[str, Any], provided: Mapping[str, Any], fire: FireContext
) -> dict[str, Any]:
    """The provided inputs plus a value for every missing property that has a default.

    A runtime token that resolves to nothing (no previous fire, no space default) leaves the input
    missing, so the inputs schema decides whether that is acceptable.
    """
    resolved = dict(provided)
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return resolved
    for name, spec in properties.items():
        if name in resolved or not isinstance(spec, Mapping) or "default" not in spec:
            continue
        default = spec["default"]
        if is_runtime_token(default):
            value = _resolve_token(default, name, fire)
            if value is not None:
                resolved[name] = value
        else:
            resolved[name] = copy.deepcopy(default)
    return resolved


_RESOLVERS: dict[str, Callable[[FireContext, str], Any]] = {
    "$last_fired_at": lambda fire, _name: fire.last_fired_at,
    "$creator": lambda fire, _name: fire.creator,
    "$space_default": lambda fire, name: copy.deepcopy(fire.space_defaults.get(name)),
}


RUNTIME_DEFAULTS = frozenset(_RESOLVERS)


def _resolve_token(token: str, name: str, fire: FireContext) -> Any:
    resolver = _RESOLVERS.get(token)
    if resolver is None:
        raise ValueError(f"unknown runtime default {token!r}")
    return resolver(fire, name)


def _properties(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    properties = schema.get("properties")
    return properties if isinstance(properties, Mapping) else {}


def space_default_names(schema: Mapping[str, Any], provided: Mapping[str, Any] | None = None) -> list[str]:
    """The inputs whose default is `$space_default` (less those `provided` already has), in order."""
    return [
        name
        for name, spec in _properties(schema).items()
        if isinstance(spec, Mapping)
        and spec.get("default") == SPACE_DEFAULT
        and (provided is None or name not in provided)
    ]


def unresolved_required(schema: Mapping[str, Any], resolved: Mapping[str, Any]) -> list[str]:
    """Required inputs left missing because their `$space_default` has no value in the space."""
    required = schema.get("required")
    if not isinstance(required, list):
        return []
    return [name for name in space_default_names(schema, resolved) if name in required]
