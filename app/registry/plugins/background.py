"""What a plugin starts by itself: pollers (run by beat per enabled space) and event subscriptions.

A poller is `async fn(ctx)`, run every `every` seconds in each space that enabled the plugin; a
subscription is `async fn(ctx, event)`, handed each event of its types once per enabled space. Both get
the same context as a handler (HTTP through the egress guard, the plugin's own emitter) plus the space's
settings for the plugin, and both are cut at their time bound.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from app.registry.plugins.rules import PluginRefused

MAX_POLLERS = 10
MAX_SUBSCRIPTIONS = 20
MAX_TYPES_PER_SUBSCRIPTION = 20
MAX_EVERY_SECONDS = 86400.0
EVENT_PATTERN = r"^[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*(\.\*)?$"
_EVENT = re.compile(EVENT_PATTERN)

PollerFn = Callable[[Any], Awaitable[Any]]
SubscriptionFn = Callable[[Any, dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True)
class Poller:
    """A function beat runs every `every_seconds` in each space that enabled the plugin."""

    name: str
    every_seconds: float
    fn: PollerFn


@dataclass(frozen=True)
class Subscription:
    """A function handed each event of `event_types` (exact types or `prefix.*`) once per space."""

    name: str
    event_types: tuple[str, ...]
    fn: SubscriptionFn

    @property
    def exact(self) -> tuple[str, ...]:
        return tuple(t for t in self.event_types if not t.endswith(".*"))

    @property
    def prefixes(self) -> tuple[str, ...]:
        """`drive.*` hears `drive.x` and `drive.x.y`: the prefix with its dot."""
        return tuple(t[:-1] for t in self.event_types if t.endswith(".*"))

    def hears(self, event_type: str) -> bool:
        return event_type in self.exact or any(event_type.startswith(p) for p in self.prefixes)


def every_seconds(full: str, every: object, minimum: float) -> float:
    """The poller's period in seconds (a number or a `timedelta`), within [minimum, one day]."""
    if isinstance(every, timedelta):
        every = every.total_seconds()
    if isinstance(every, bool) or not isinstance(every, (int, float)):
        raise PluginRefused(f"poller {full!r}: every must be a number of seconds or a timedelta")
    if not minimum <= float(every) <= MAX_EVERY_SECONDS:
        raise PluginRefused(
            f"poller {full!r}: every must be between {minimum:g} s (AUTOMATIONS_PLUGIN_POLL_MIN_SECONDS) "
            f"and {MAX_EVERY_SECONDS:g} s, not {every!r}"
        )
    return float(every)


def event_types(full: str, value: object) -> tuple[str, ...]:
    """The subscription's event types: one or a list of types or `prefix.*`; never a bare wildcard."""
    types = [value] if isinstance(value, str) else value
    if not isinstance(types, (list, tuple)) or not types or len(types) > MAX_TYPES_PER_SUBSCRIPTION:
        raise PluginRefused(
            f"subscription {full!r}: event_types must be 1 to {MAX_TYPES_PER_SUBSCRIPTION} event types"
        )
    for item in types:
        if item in ("*", "#", "**", ".*") or (isinstance(item, str) and item.strip() in ("*", "#")):
            raise PluginRefused(
                f"subscription {full!r}: a bare wildcard ({item!r}) would hear every event; "
                "name the types, or a prefix such as 'automation.run.*'"
            )
        if not isinstance(item, str) or len(item) > 200 or not _EVENT.fullmatch(item):
            raise PluginRefused(
                f"subscription {full!r}: {item!r} is not an event type (e.g. 'automation.run.failed') "
                "or a prefix ending in '.*'"
            )
    return tuple(dict.fromkeys(types))
