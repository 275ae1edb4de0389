"""Native capabilities: outbound HTTP (through the egress guard) and in-app notifications.

Handlers only use the ports on the context they are given, so credentials and connections stay with
the worker and every request passes the egress guard.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from app.registry.builtin_llm import LLM_COMPLETE
from app.registry.models import Capability, Risk
from app.registry.ports import HandlerContext

HEADERS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": {"type": "string"},
    "maxProperties": 100,
}
MAX_TEXT_CHARS = 1024 * 1024


async def _http_request(ctx: HandlerContext, args: dict[str, Any]) -> dict[str, Any]:
    answer = await ctx.ports.http.request(
        args.get("method", "GET"),
        args["url"],
        headers=args.get("headers", {}),
        params=args.get("query", {}),
        json_body=args.get("json"),
        content=args.get("body"),
        timeout_seconds=float(args.get("timeout_seconds", 30)),
    )
    text = answer.content.decode("utf-8", errors="replace").replace("\x00", "\ufffd")[:MAX_TEXT_CHARS]
    result: dict[str, Any] = {"status_code": answer.status_code, "headers": answer.headers, "text": text}
    if "json" in answer.headers.get("content-type", ""):
        # A server that says JSON but sends something else: `text` still has it.
        with contextlib.suppress(ValueError):
            result["json"] = json.loads(text)
    return result


READING_METHODS = frozenset({"GET", "HEAD"})


def _http_risk(args: dict[str, Any]) -> Risk:
    """GET and HEAD read; every other method may change something on the other side."""
    method = args.get("method", "GET")
    return "read" if isinstance(method, str) and method.upper() in READING_METHODS else "write"


HTTP_REQUEST = Capability(
    id="http.request",
    description="Send one HTTP request to a public address (through the egress guard) and return the answer.",
    input_schema={
        "type": "object",
        "required": ["url"],
        "properties": {
            "method": {
                "enum": ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"],
                "default": "GET",
            },
            "url": {"type": "string", "minLength": 1, "maxLength": 2048},
            "headers": HEADERS_SCHEMA,
            "query": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}},
            "json": {"description": "A JSON body (sets Content-Type: application/json)."},
            "body": {"type": "string", "description": "A raw text body; exclusive with json."},
            "timeout_seconds": {"type": "number", "exclusiveMinimum": 0, "maximum": 300, "default": 30},
        },
        "not": {"required": ["json", "body"]},
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "required": ["status_code", "headers", "text"],
        "properties": {
            "status_code": {"type": "integer"},
            "headers": HEADERS_SCHEMA,
            "text": {"type": "string"},
            "json": {},
        },
    },
    handler=_http_request,
    risk="write",
    call_risk=_http_risk,
)


async def _notify(ctx: HandlerContext, args: dict[str, Any]) -> dict[str, Any]:
    notification_id = await ctx.ports.notifications.send(
        level=args.get("level", "info"), title=args["title"], body=args.get("body", "")
    )
    return {"notification_id": notification_id}


NOTIFY_SEND = Capability(
    id="notify.send",
    description="Post an in-app notification to the automation's space (listed by GET …/notifications).",
    input_schema={
        "type": "object",
        "required": ["title"],
        "properties": {
            "title": {"type": "string", "minLength": 1, "maxLength": 300},
            "body": {"type": "string", "maxLength": 20000},
            "level": {"enum": ["info", "success", "warning", "error"], "default": "info"},
        },
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "required": ["notification_id"],
        "properties": {"notification_id": {"type": "string"}},
    },
    handler=_notify,
    risk="write",
)

BUILTIN_CAPABILITIES: tuple[Capability, ...] = (HTTP_REQUEST, NOTIFY_SEND, LLM_COMPLETE)
