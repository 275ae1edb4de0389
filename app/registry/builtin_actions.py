"""The built-in actions: one pure transformation, and actions that forward to one capability each."""

from __future__ import annotations

from typing import Any

from app.registry.builtin_agent import AGENT_TASK
from app.registry.builtin_capabilities import HTTP_REQUEST, NOTIFY_SEND
from app.registry.builtin_llm import LLM_COMPLETE_ACTION
from app.registry.data_files import encode_data
from app.registry.factories import capability_action
from app.registry.models import ActionDefinition, ArtifactSpec
from app.registry.ports import HandlerContext


async def _transform_data(ctx: HandlerContext, config: dict[str, Any]) -> Any:
    # The executor has already rendered the templates in the config: the result is the output.
    spec = config.get("save_as_artifact")
    if not spec:
        return config["output"]
    data, content_type = encode_data(config["output"], spec.get("format", "json"))
    ref = await ctx.artifacts.put(
        spec["name"],
        data,
        content_type,
        kind="data",
        retention=spec.get("retention", "default"),
        visibility=spec.get("visibility", "private"),
    )
    return {"artifact_id": ref.id, "artifact": ref.as_dict()}


NOT_KEPT = "[not recorded: content for an artifact that was not written]"


def _transform_record(config: dict[str, Any], output: Any) -> dict[str, Any]:
    """An artifact's content stays in the artifact, whose visibility decides who reads it: the step
    record, which every member reads, holds the artifact's id in place of `output`."""
    if not config.get("save_as_artifact"):
        return config
    kept = output.get("artifact_id") if isinstance(output, dict) else None
    return {**config, "output": {"artifact_id": kept} if kept else NOT_KEPT}


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
        "properties": {
            "output": {"description": "The value to return, templates rendered."},
            "save_as_artifact": {
                "type": "object",
                "description": "Write `output` as a `data` artifact (JSON, or CSV from a list of rows) and "
                "return {artifact_id, artifact} instead of the value.",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": 255},
                    "format": {"enum": ["json", "csv"], "default": "json"},
                    "retention": {"enum": ["transient", "default", "permanent"], "default": "default"},
                    "visibility": {"enum": ["private", "space", "shared"], "default": "private"},
                },
                "additionalProperties": False,
            },
        },
        "additionalProperties": False,
    },
    output_contract={
        "description": "Any JSON value: the rendered `output` (or the artifact it was saved as)."
    },
    handler=_transform_data,
    duration_class="fast",
    recorded_config=_transform_record,
    # With `save_as_artifact`: a data artifact, kept and shown as the step's config chooses (these
    # are its defaults).
    produces_artifacts=(ArtifactSpec("data"),),
)


class HttpStatusRefused(Exception):
    """The server answered with a status the step did not accept."""


def _without_step_keys(config: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in config.items() if key != "accept_statuses"}


def _accepted(config: dict[str, Any], answer: Any) -> Any:
    status = answer["status_code"]
    if status >= 400 and status not in config.get("accept_statuses", []):
        raise HttpStatusRefused(f"{config.get('method', 'GET')} answered {status}")
    return answer


HTTP_REQUEST_ACTION = capability_action(
    HTTP_REQUEST,
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
    duration_class="fast",
    prepare=_without_step_keys,
    finish=_accepted,
    example_output={"status_code": 200, "headers": {}, "text": ""},
    # With `save_as_artifact` the answer's body becomes an artifact of the kind the config names
    # (a document unless it says otherwise).
    produces_artifacts=tuple(ArtifactSpec(kind) for kind in ("document", "audio", "image", "data")),
)

NOTIFICATION_ACTION = capability_action(
    NOTIFY_SEND,
    type="notification",
    name="In-app notification",
    description="Post a notification to the space's inbox (GET /api/v1/spaces/{space_id}/notifications).",
    duration_class="fast",
    example_output={"notification_id": ""},
)


async def _call_tool(ctx: HandlerContext, config: dict[str, Any]) -> Any:
    # Any capability of the space, through the same pipeline as every other call.
    return await ctx.invoke_capability(config["capability"], dict(config.get("args") or {}))


CALL_TOOL_ACTION = ActionDefinition(
    type="call_tool",
    name="Call a tool",
    description=(
        "Calls one capability of the space directly, without an agent: a built-in one or a tool of a "
        "connected MCP server (`crm.create_note`). `args` are the capability's arguments (templates "
        'rendered; `{"$secret": "name"}` for a credential); the output is its result.'
    ),
    config_schema={
        "type": "object",
        "required": ["capability"],
        "properties": {
            "capability": {
                "type": "string",
                "minLength": 3,
                "maxLength": 100,
                "description": "The capability id, as the space's catalog lists it.",
            },
            "args": {"type": "object", "description": "The capability's arguments."},
        },
        "additionalProperties": False,
    },
    output_contract={"description": "The capability's result."},
    handler=_call_tool,
    duration_class="medium",
)

BUILTIN_ACTIONS: tuple[ActionDefinition, ...] = (
    TRANSFORM_DATA,
    HTTP_REQUEST_ACTION,
    NOTIFICATION_ACTION,
    AGENT_TASK,
    LLM_COMPLETE_ACTION,
    CALL_TOOL_ACTION,
)
