"""What a plugin's handler is handed: the space id, HTTP through the egress guard, and its emitter.

Nothing else reaches plugin code: no database session, no settings, no credentials. A secret reaches a
handler only as the value of an argument that named it by reference, resolved by the capability
pipeline for that one call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.definitions.json_schema import schema_problems
from app.definitions.signals import StepError
from app.registry.plugins.rules import MAX_HTTP_SECONDS
from app.registry.ports import EventPort, HttpPort


@dataclass(frozen=True)
class PluginResponse:
    """A complete HTTP answer (its body was read within the 10 MB cap)."""

    status_code: int
    headers: dict[str, str]
    content: bytes
    url: str

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """The body parsed as JSON (`ValueError` when it is not JSON)."""
        return json.loads(self.content)


class PluginHttp:
    """Outbound HTTP for plugin code: the egress-guarded port, at most 60 s and 10 MB per request.

    Addresses the operator has not opened (private, loopback, link-local, metadata services) are
    refused, redirects are checked hop by hop, and the call never outlives the step's own time.
    """

    def __init__(self, port: HttpPort, step_seconds: float) -> None:
        self._port = port
        self._step_seconds = step_seconds

    async def request(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        content: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 (the port applies it; callers name it per request)
    ) -> PluginResponse:
        """Send one request and read the whole answer; failures raise the step's HTTP errors."""
        limit = min(timeout or MAX_HTTP_SECONDS, MAX_HTTP_SECONDS, self._step_seconds)
        answer = await self._port.request(
            method.upper(),
            url,
            headers=dict(headers or {}),
            params=dict(params or {}),
            json_body=json,
            content=content,
            timeout_seconds=limit,
        )
        return PluginResponse(answer.status_code, answer.headers, answer.content, answer.url)

    async def get(self, url: str, **kwargs: Any) -> PluginResponse:
        return await self.request("GET", url, **kwargs)

    async def post(self, url: str, **kwargs: Any) -> PluginResponse:
        return await self.request("POST", url, **kwargs)


@dataclass(frozen=True)
class DeclaredEvent:
    """A trigger a plugin registered: the event type it may emit and the payload it promises."""

    plugin_id: str
    name: str
    type: str
    description: str
    payload_schema: dict[str, Any]


class PluginEvents:
    """Emits the plugin's own declared event types into the space; anything else is refused."""

    def __init__(self, plugin_id: str, declared: Mapping[str, DeclaredEvent], port: EventPort | None) -> None:
        # `declared` is keyed by full type and still filling while setup runs: read it at emit time.
        self._plugin_id = plugin_id
        self._declared = declared
        self._port = port

    async def emit(self, event_type: str, payload: dict[str, Any]) -> str:
        """Publish `event_type` (the registered name, or its full `<namespace>.<name>`); answers the id."""
        event = next((item for item in self._declared.values() if event_type in (item.name, item.type)), None)
        if event is None:
            raise StepError(
                "undeclared_event",
                f"plugin {self._plugin_id!r} did not register a trigger {event_type!r}",
                retryable=False,
            )
        if not isinstance(payload, dict):
            raise StepError(
                "invalid_event_payload", f"{event.type}: the payload must be an object", retryable=False
            )
        problems = schema_problems(event.payload_schema, payload)
        if problems:
            raise StepError(
                "invalid_event_payload",
                f"{event.type}: the payload does not match its schema",
                retryable=False,
                details=problems,
            )
        if self._port is None:
            raise StepError("events_unavailable", "events cannot be emitted outside a run", retryable=False)
        return await self._port.publish(event.type, payload, source_id=f"plugin:{self._plugin_id}")


@dataclass(frozen=True)
class PluginContext:
    """The one argument besides its arguments that a plugin handler receives (and all a poller gets)."""

    plugin_id: str
    space_id: str
    http: PluginHttp
    events: PluginEvents
    settings: dict[str, Any] = field(default_factory=dict)
    """The space's settings for the plugin (pollers and subscriptions; empty for action and tool calls)."""
