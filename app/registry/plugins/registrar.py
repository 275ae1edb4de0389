"""The registrar a plugin's `setup(registrar)` receives, and what it builds: the plugin's definitions.

Registration is checked as it happens: names are namespaced and must follow the naming rule,
descriptions are cut to 500 characters, a risk must be declared, caps are enforced, and a second
registration of a name the plugin already registered is skipped (no error, no overwrite). The first
refusal is kept even if the plugin's setup swallows the exception, so a broken plugin never loads half.
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from app.registry.base import InvalidEntry
from app.registry.models import ActionDefinition, Capability, SecretFields, check_json_schema
from app.registry.plugins.background import (
    MAX_POLLERS,
    MAX_SUBSCRIPTIONS,
    Poller,
    PollerFn,
    Subscription,
    SubscriptionFn,
    event_types,
    every_seconds,
)
from app.registry.plugins.context import DeclaredEvent
from app.registry.plugins.handlers import PluginHandler, capability_handler
from app.registry.plugins.rules import (
    MAX_ACTIONS,
    MAX_TOOLS,
    MAX_TRIGGERS,
    PluginRefused,
    qualified_name,
    short_description,
)
from app.registry.ports import HandlerContext

logger = logging.getLogger("app.plugins")
_OPEN_OBJECT: dict[str, Any] = {"type": "object"}
_RISKS = ("read", "write")


@dataclass(frozen=True)
class LoadedPlugin:
    """A plugin that set up cleanly: what it registered, ready for the per-space sources."""

    id: str
    version: str
    namespace: str
    events: tuple[DeclaredEvent, ...]
    actions: tuple[ActionDefinition, ...]
    capabilities: tuple[Capability, ...]
    """Its tools, and the capability behind each of its actions (same name as the action)."""
    tools: tuple[str, ...]
    """The ids of the capabilities it registered as tools."""
    pollers: tuple[Poller, ...] = ()
    subscriptions: tuple[Subscription, ...] = ()
    settings_schema: dict[str, Any] | None = None
    """What a space may configure for the plugin (`PUT …/plugins/{id}` `settings`); None: nothing."""


class Registrar:
    """Collects one plugin's triggers, actions and tools during its `setup`."""

    def __init__(self, plugin_id: str, namespace: str, min_poll_seconds: float = 60.0) -> None:
        self.plugin_id = plugin_id
        self.namespace = namespace
        self.min_poll_seconds = min_poll_seconds
        self._pollers: dict[str, Poller] = {}
        self._subscriptions: dict[str, Subscription] = {}
        self._settings_schema: dict[str, Any] | None = None
        self._events: dict[str, DeclaredEvent] = {}
        self._actions: dict[str, ActionDefinition] = {}
        self._capabilities: dict[str, Capability] = {}
        self._tools: list[str] = []
        self._refusal: PluginRefused | None = None
        self._closed = False

    def register_trigger(
        self, type: str, description: str, payload_schema: dict[str, Any] | None = None
    ) -> str:
        """Declare an event type the plugin emits with `ctx.events.emit`; answers the full type."""
        with self._checked():
            full = qualified_name(self.namespace, "trigger", type)
            if full in self._events:
                return full
            self._cap("triggers", len(self._events), MAX_TRIGGERS)
            schema = _OPEN_OBJECT if payload_schema is None else payload_schema
            # A capability-shaped check of the schema: the same rules as every registered schema.
            _schema_checked(full, schema)
            self._events[full] = DeclaredEvent(
                plugin_id=self.plugin_id,
                name=type,
                type=full,
                description=short_description(f"trigger {full!r}", description),
                payload_schema=schema,
            )
            return full

    def register_action(
        self,
        type: str,
        handler: PluginHandler,
        description: str,
        config_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        risk: str | None = None,
        secret_fields: tuple[str, ...] = (),
    ) -> str:
        """An action steps name as `<namespace>.<type>`; it runs through the capability of that id.

        `secret_fields`: JSON pointers of the config fields that may hold a secret reference (e.g.
        `("/token",)`); a reference anywhere else is refused."""
        with self._checked():
            full = qualified_name(self.namespace, "action", type)
            if full in self._actions:
                return full
            self._cap("actions", len(self._actions), MAX_ACTIONS)
            capability = self._capability(
                full, handler, description, config_schema, output_schema, risk, secret_fields
            )
            action = _forwarding_action(self.plugin_id, type, capability)
            self._capabilities[full], self._actions[full] = capability, action
            return full

    def register_tool(
        self,
        name: str,
        handler: PluginHandler,
        description: str,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        risk: str | None = None,
        secret_fields: tuple[str, ...] = (),
    ) -> str:
        """A capability agents (and `invoke_capability`) call as `<namespace>.<name>`; `secret_fields` as
        for `register_action`."""
        with self._checked():
            full = qualified_name(self.namespace, "tool", name)
            if full in self._tools:
                return full
            self._cap("tools", len(self._tools), MAX_TOOLS)
            capability = self._capability(
                full, handler, description, input_schema, output_schema, risk, secret_fields
            )
            self._capabilities[full] = capability
            self._tools.append(full)
            return full

    def register_poller(self, name: str, every: float | timedelta, fn: PollerFn) -> str:
        """Run `async fn(ctx)` every `every` seconds (or a `timedelta`) in each space that enabled the
        plugin, on the system queue, cut at its time bound; answers the full name."""
        with self._checked():
            full = qualified_name(self.namespace, "poller", name)
            if full in self._pollers:
                return full
            self._cap("pollers", len(self._pollers), MAX_POLLERS)
            seconds = every_seconds(full, every, self.min_poll_seconds)
            self._require_async(full, fn)
            self._pollers[full] = Poller(name=name, every_seconds=seconds, fn=fn)
            return full

    def register_subscription(
        self, event_types_: str | list[str] | tuple[str, ...], fn: SubscriptionFn, name: str | None = None
    ) -> str:
        """Hand `async fn(ctx, event)` each event of these types (core or plugin, exact or `prefix.*`;
        never a bare `*`) once per space that enabled the plugin. `name` defaults to the function's name."""
        with self._checked():
            local = name if name is not None else getattr(fn, "__name__", None)
            full = qualified_name(self.namespace, "subscription", local)
            if full in self._subscriptions:
                return full
            self._cap("subscriptions", len(self._subscriptions), MAX_SUBSCRIPTIONS)
            types = event_types(full, event_types_)
            self._require_async(full, fn)
            self._subscriptions[full] = Subscription(name=str(local), event_types=types, fn=fn)
            return full

    def register_settings(self, schema: dict[str, Any]) -> None:
        """The JSON Schema of what a space configures for the plugin (handed to pollers and
        subscriptions as `ctx.settings`). Settings are shown in API answers: never put secrets there."""
        with self._checked():
            _schema_checked(f"{self.namespace}.settings", schema)
            self._settings_schema = schema

    def close(self, version: str) -> LoadedPlugin:
        """End registration (later calls are refused) and answer the plugin, or raise its refusal."""
        self._closed = True
        if self._refusal is not None:
            raise self._refusal
        return LoadedPlugin(
            id=self.plugin_id,
            version=version,
            namespace=self.namespace,
            events=tuple(self._events.values()),
            actions=tuple(self._actions.values()),
            capabilities=tuple(self._capabilities.values()),
            tools=tuple(self._tools),
            pollers=tuple(self._pollers.values()),
            subscriptions=tuple(self._subscriptions.values()),
            settings_schema=self._settings_schema,
        )

    def _checked(self) -> _Refusals:
        return _Refusals(self)

    def _require_async(self, full: str, fn: Any) -> None:
        if not _is_async(fn):
            raise PluginRefused(f"{full!r}: the function must be an async function (async def)")

    def _cap(self, kind: str, count: int, cap: int) -> None:
        if count >= cap:
            raise PluginRefused(f"registers more than {cap} {kind} (the cap per plugin)")

    def _capability(
        self,
        full: str,
        handler: Any,
        description: Any,
        input_schema: dict[str, Any] | None,
        output_schema: dict[str, Any] | None,
        risk: Any,
        secret_fields: Any,
    ) -> Capability:
        if full in self._capabilities:
            raise PluginRefused(f"{full!r} is registered both as an action and as a tool")
        if risk not in _RISKS:
            raise PluginRefused(f"{full!r}: risk must be declared as 'read' or 'write', not {risk!r}")
        if not _is_async(handler):
            raise PluginRefused(f"{full!r}: the handler must be an async function (async def)")
        text = short_description(repr(full), description)
        try:
            return Capability(
                id=full,
                description=text,
                input_schema=_OPEN_OBJECT if input_schema is None else input_schema,
                output_schema=_OPEN_OBJECT if output_schema is None else output_schema,
                handler=capability_handler(self.plugin_id, full, handler, self._events),
                risk=risk,
                tier="plugin",
                plugin=self.plugin_id,
                # The handler's own HTTP goes through the egress guard, which enforces each secret's
                # hosts; which arguments may hold one is the plugin's declaration.
                secret_fields=SecretFields(paths=tuple(secret_fields)),
            )
        except (InvalidEntry, TypeError) as exc:
            raise PluginRefused(str(exc)) from None


class _Refusals:
    """Records the first refusal on the registrar, then lets it propagate to the plugin's setup."""

    def __init__(self, registrar: Registrar) -> None:
        self.registrar = registrar

    def __enter__(self) -> None:
        if self.registrar._closed:
            raise PluginRefused("registers after its setup returned; register everything inside setup")

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        if isinstance(exc, PluginRefused) and self.registrar._refusal is None:
            self.registrar._refusal = exc


def _is_async(handler: Any) -> bool:
    return inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(
        getattr(handler, "__call__", None)  # noqa: B004 (an object with an async __call__ is a handler too)
    )


def _schema_checked(full: str, schema: Any) -> None:
    """Refuse a payload schema that is not a valid, self-contained JSON Schema object."""
    try:
        check_json_schema(f"trigger {full!r}", "payload_schema", schema)
    except InvalidEntry as exc:
        raise PluginRefused(str(exc)) from None


def _forwarding_action(plugin_id: str, local: str, capability: Capability) -> ActionDefinition:
    """The step around the capability: the config is its arguments, its result the step's output."""

    async def forward(ctx: HandlerContext, config: dict[str, Any]) -> Any:
        return await ctx.invoke_capability(capability.id, config)

    forward.__qualname__ = forward.__name__ = f"forward_to_{capability.id.replace('.', '_')}"
    return ActionDefinition(
        type=capability.id,
        name=local.replace("_", " ").capitalize(),
        description=capability.description,
        config_schema=capability.input_schema,
        output_contract=capability.output_schema,
        handler=forward,
        duration_class="medium",
        uses_capabilities=(capability.id,),
        tier="plugin",
        plugin=plugin_id,
        secret_fields=capability.secret_fields,
    )
