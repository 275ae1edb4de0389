"""The built-in pure actions."""

from __future__ import annotations

from typing import Any

from app.registry.builtin_agent import AGENT_TASK, LLM_COMPLETE_ACTION
from app.registry.builtin_capabilities import HTTP_REQUEST, NOTIFY_SEND
from app.registry.models import ActionDefinition


async def _transform_data(ctx: Any, config: dict[str, Any]) -> Any:
    # The executor has already rendered the templates in the config: the result is the output.
    return config["output"]


TRANSFORM_DATA = ActionDefinition(
    type="transform_data",
    name="Transform data",
    description=(
        "Builds a value from inputs and earlier outputs with templates and returns it, with no side "
        "effect: `output` may be any JSON value; a string that is exactly one {{ expression }} keeps "
        "the expression's type (list, object, number)."
    ),
    config_schema={
        "type": "object",
        "required": ["output"],
        "properties": {"output": {"description": "The value to return, templates rendered."}},
        "additionalProperties": False,
    },
    output_contract={"description": "Any JSON value: the rendered `output`."},
    handler=_transform_data,
    duration_class="fast",
)


class HttpStatusRefused(Exception):
    """The server answered with a status the step did not accept."""


async def _http_request(ctx: Any, config: dict[str, Any]) -> Any:
    args = {key: value for key, value in config.items() if key != "accept_statuses"}
    answer = await ctx.invoke_capability("http.request", args)
    status = answer["status_code"]
    if status >= 400 and status not in config.get("accept_statuses", []):
        raise HttpStatusRefused(f"{config.get('method', 'GET')} answered {status}")
    return answer


HTTP_REQUEST_ACTION = ActionDefinition(
    type="http_request",
    name="HTTP request",
    description=(
        "Call an HTTP endpoint on a public address. A 4xx or 5xx answer fails the step (and is retried "
        "by the retry policy) unless its status is listed in `accept_statuses`."
    ),
    config_schema={
        "type": "object",
        "required": ["url"],
        "properties": {
            **HTTP_REQUEST.input_schema["properties"],
            "accept_statuses": {
                "type": "array",
                "items": {"type": "integer", "minimum": 400, "maximum": 599},
                "maxItems": 200,
            },
        },
        "not": {"required": ["json", "body"]},
        "additionalProperties": False,
    },
    output_contract=HTTP_REQUEST.output_schema,
    handler=_http_request,
    duration_class="fast",
    uses_capabilities=("http.request",),
)


async def _notification(ctx: Any, config: dict[str, Any]) -> Any:
    return await ctx.invoke_capability("notify.send", config)


NOTIFICATION_ACTION = ActionDefinition(
    type="notification",
    name="In-app notification",
    description="Post a notification to the space's inbox (GET /api/v1/spaces/{space_id}/notifications).",
    config_schema=NOTIFY_SEND.input_schema,
    output_contract=NOTIFY_SEND.output_schema,
    handler=_notification,
    duration_class="fast",
    uses_capabilities=("notify.send",),
)

BUILTIN_ACTIONS: tuple[ActionDefinition, ...] = (
    TRANSFORM_DATA,
    HTTP_REQUEST_ACTION,
    NOTIFICATION_ACTION,
    AGENT_TASK,
    LLM_COMPLETE_ACTION,
)
