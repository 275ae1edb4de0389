"""`capability_action`: an action that forwards its config to one capability."""

from __future__ import annotations

from typing import Any

import pytest

from app.registry import Capability, capability_action
from app.registry.builtin_actions import HTTP_REQUEST_ACTION, NOTIFICATION_ACTION, HttpStatusRefused
from app.registry.builtin_capabilities import HTTP_REQUEST, NOTIFY_SEND

OBJECT = {"type": "object"}


class Recorder:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def invoke_capability(self, capability_id: str, args: dict[str, Any]) -> Any:
        self.calls.append((capability_id, args))
        return self.answer


async def _unused(ctx: Any, args: dict[str, Any]) -> Any:
    raise AssertionError("the action forwards; it never runs the capability's handler itself")


ECHO = Capability("demo.echo", "Echoes.", {"type": "object", "required": ["a"]}, OBJECT, _unused)


async def test_forwards_the_config_and_answers_the_result() -> None:
    action = capability_action(ECHO, type="echo", name="Echo", description="Echo it.", duration_class="fast")
    ctx = Recorder({"ok": True})
    assert await action.handler(ctx, {"a": 1}) == {"ok": True}  # type: ignore[arg-type]
    assert ctx.calls == [("demo.echo", {"a": 1})]
    assert (action.config_schema, action.output_schema, action.uses_capabilities) == (
        ECHO.input_schema,
        ECHO.output_schema,
        ("demo.echo",),
    )


async def test_prepare_and_finish_adapt_both_ends() -> None:
    action = capability_action(
        ECHO,
        type="echo",
        name="Echo",
        description="Echo it.",
        duration_class="fast",
        config_schema=OBJECT,
        prepare=lambda config: {"a": config["b"]},
        finish=lambda config, result: {**result, "asked": config["b"]},
    )
    ctx = Recorder({"ok": True})
    assert await action.handler(ctx, {"b": 2}) == {"ok": True, "asked": 2}  # type: ignore[arg-type]
    assert ctx.calls == [("demo.echo", {"a": 2})]


async def test_http_request_drops_its_step_keys_and_refuses_unaccepted_statuses() -> None:
    assert HTTP_REQUEST_ACTION.uses_capabilities == (HTTP_REQUEST.id,)
    ctx = Recorder({"status_code": 404, "headers": {}, "text": ""})
    config = {"url": "https://example.com", "accept_statuses": [404]}
    assert (await HTTP_REQUEST_ACTION.handler(ctx, config))["status_code"] == 404  # type: ignore[arg-type]
    assert ctx.calls == [("http.request", {"url": "https://example.com"})]
    with pytest.raises(HttpStatusRefused, match="GET answered 404"):
        await HTTP_REQUEST_ACTION.handler(ctx, {"url": "https://example.com"})  # type: ignore[arg-type]


def test_notification_is_the_capability_with_a_step_around_it() -> None:
    assert NOTIFICATION_ACTION.config_schema == NOTIFY_SEND.input_schema
    assert NOTIFICATION_ACTION.output_schema == NOTIFY_SEND.output_schema
