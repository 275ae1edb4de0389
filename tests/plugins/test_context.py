"""The plugin context on its own: HTTP time caps, and the emitter's refusals before anything is published."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import pytest

from app.definitions.signals import StepError
from app.registry.plugins import DeclaredEvent, PluginContext, PluginEvents, PluginHttp
from app.registry.ports import HttpAnswer

DECLARED = {
    "acme.fired": DeclaredEvent(
        plugin_id="acme",
        name="fired",
        type="acme.fired",
        description="d",
        payload_schema={"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}},
    )
}


class RecordingHttp:
    """An HttpPort that answers 204 and keeps the time each request was given."""

    def __init__(self) -> None:
        self.timeouts: list[float] = []

    async def request(self, method: str, url: str, *, timeout_seconds: float, **_: Any) -> HttpAnswer:
        self.timeouts.append(timeout_seconds)
        return HttpAnswer(204, {}, b"", url)


class RecordingEvents:
    def __init__(self) -> None:
        self.published: list[tuple[str, dict[str, Any], str]] = []

    async def publish(self, event_type: str, payload: Mapping[str, Any], *, source_id: str) -> str:
        self.published.append((event_type, dict(payload), source_id))
        return "event-1"


@pytest.mark.parametrize(
    ("asked", "step", "given"), [(None, 600, 60), (300, 600, 60), (5, 600, 5), (None, 2, 2)]
)
async def test_http_never_gets_more_than_60_seconds_or_the_step_s_time(
    asked: float | None, step: float, given: float
) -> None:
    port = RecordingHttp()
    await PluginHttp(port, step).get("https://example.com", timeout=asked)
    assert port.timeouts == [given]


async def test_emit_publishes_the_namespaced_type_by_either_name() -> None:
    port = RecordingEvents()
    events = PluginEvents("acme", DECLARED, port)
    assert await events.emit("fired", {"n": 1}) == "event-1"
    await events.emit("acme.fired", {"n": 2})
    assert port.published == [
        ("acme.fired", {"n": 1}, "plugin:acme"),
        ("acme.fired", {"n": 2}, "plugin:acme"),
    ]


@pytest.mark.parametrize(
    ("event_type", "payload", "code"),
    [
        ("other", {"n": 1}, "undeclared_event"),
        ("automation.run.succeeded", {"n": 1}, "undeclared_event"),
        ("fired", {"n": "one"}, "invalid_event_payload"),
        ("fired", ["n"], "invalid_event_payload"),
    ],
)
async def test_emit_refuses_what_the_plugin_did_not_declare(event_type: str, payload: Any, code: str) -> None:
    port = RecordingEvents()
    with pytest.raises(StepError) as refused:
        await PluginEvents("acme", DECLARED, port).emit(event_type, payload)
    assert refused.value.code == code
    assert port.published == []


async def test_emit_outside_a_run_fails_clearly() -> None:
    with pytest.raises(StepError) as refused:
        await PluginEvents("acme", DECLARED, None).emit("fired", {"n": 1})
    assert refused.value.code == "events_unavailable"


def test_a_handler_context_holds_nothing_but_http_events_ids_and_settings() -> None:
    assert [field.name for field in dataclasses.fields(PluginContext)] == [
        "plugin_id",
        "space_id",
        "http",
        "events",
        "settings",
    ]
