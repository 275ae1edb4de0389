"""Native capabilities: outbound HTTP (through the egress guard) and in-app notifications.

Handlers only use the ports on the context they are given, so credentials and connections stay with
the worker and every request passes the egress guard.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any
from urllib.parse import urlsplit

from app.definitions.signals import StepError
from app.registry.builtin_llm import LLM_COMPLETE
from app.registry.models import Capability, Risk, SecretFields
from app.registry.ports import HandlerContext

HEADERS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": {"type": "string"},
    "maxProperties": 100,
}
MAX_TEXT_CHARS = 1024 * 1024


MAX_DOWNLOAD_BYTES = 100 * 1024 * 1024
# An error answer is read for the step's record instead of being kept as an artifact.
MAX_ERROR_BODY_BYTES = 64 * 1024

SAVE_AS_ARTIFACT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 255},
        "kind": {"enum": ["audio", "document", "image", "data"], "default": "document"},
        "retention": {"enum": ["transient", "default", "permanent"], "default": "default"},
        "visibility": {"enum": ["private", "space", "shared"], "default": "private"},
    },
    "additionalProperties": False,
}
ARTIFACT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["id", "name", "kind", "size", "content_type", "sha256"],
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "kind": {"type": "string"},
        "size": {"type": "integer"},
        "content_type": {"type": "string"},
        "sha256": {"type": "string"},
        "retention": {"type": "string"},
        "visibility": {"type": "string"},
        "expires_at": {"type": ["string", "null"]},
        "link": {"type": ["string", "null"]},
    },
}


async def _download(ctx: HandlerContext, args: dict[str, Any]) -> dict[str, Any]:
    """Stream the answer into an artifact: the body never enters the step's output or memory whole."""
    if ctx.ports.download is None:
        raise StepError("artifacts_unavailable", "this process cannot store artifacts", retryable=False)
    spec = args["save_as_artifact"]
    async with ctx.ports.download.open(
        args.get("method", "GET"),
        args["url"],
        headers=args.get("headers", {}),
        params=args.get("query", {}),
        json_body=args.get("json"),
        content=args.get("body"),
        timeout_seconds=float(args.get("timeout_seconds", 30)),
        max_bytes=MAX_DOWNLOAD_BYTES,
    ) as stream:
        result: dict[str, Any] = {"status_code": stream.status_code, "headers": stream.headers}
        if stream.status_code >= 400:
            kept = bytearray()
            async for chunk in stream.chunks:
                kept += chunk[: MAX_ERROR_BODY_BYTES - len(kept)]
                if len(kept) >= MAX_ERROR_BODY_BYTES:
                    break
            result["text"] = kept.decode("utf-8", errors="replace").replace("\x00", "\ufffd")
            return result
        content_type = stream.headers.get("content-type", "application/octet-stream")
        ref = await ctx.artifacts.put(
            spec["name"],
            stream.chunks,
            content_type,
            kind=spec.get("kind", "document"),
            retention=spec.get("retention", "default"),
            visibility=spec.get("visibility", "private"),
        )
    return {**result, "artifact_id": ref.id, "artifact": ref.as_dict()}


INDEX_AS_DOCUMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": 500},
        "tags": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 100},
            "maxItems": 50,
        },
    },
    "additionalProperties": False,
    "description": "Index a successful answer's body (text, Markdown, HTML, PDF, DOCX) as a document of the "
    "space; the output then carries `document_id`.",
}


async def _index_answer(ctx: HandlerContext, args: dict[str, Any], answer: Any) -> dict[str, Any]:
    """The answer's body as a new document of the run's space (indexed after the call)."""
    if ctx.ports.knowledge is None:
        raise StepError("knowledge_unavailable", "documents are indexed only inside a run", retryable=False)
    spec = args["index_as_document"]
    return await ctx.ports.knowledge.add(
        data=answer.content,
        content_type=answer.headers.get("content-type", "application/octet-stream"),
        source_url=answer.url,
        title=spec.get("title"),
        tags=spec.get("tags", []),
        step_id=ctx.step_id,
    )


async def _http_request(ctx: HandlerContext, args: dict[str, Any]) -> dict[str, Any]:
    if args.get("save_as_artifact"):
        return await _download(ctx, args)
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
    if args.get("index_as_document") is not None and answer.status_code < 400:
        indexed = await _index_answer(ctx, args, answer)
        result["document_id"] = indexed["document_id"]
    return result


def _url_host(args: dict[str, Any]) -> str | None:
    """The host a request goes to first (redirects are checked hop by hop by the egress transport)."""
    url = args.get("url")
    if not isinstance(url, str):
        return None
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


HTTP_SECRET_FIELDS = SecretFields(paths=("/headers/*", "/query/*", "/json/**", "/body"), host=_url_host)
"""A credential goes in a header, a query parameter or the body of the request, to its URL's host."""

READING_METHODS = frozenset({"GET", "HEAD"})


def _http_risk(args: dict[str, Any]) -> Risk:
    """GET and HEAD read; every other method may change something on the other side."""
    method = args.get("method", "GET")
    return "read" if isinstance(method, str) and method.upper() in READING_METHODS else "write"


def _http_target(args: dict[str, Any]) -> str:
    """`METHOD scheme://host[:port]/path?query`: the literal URL, less its fragment and user info.

    The method and the address a request acts on, query included (many APIs name the operation
    there); headers and body are data. Scheme and host are lower-cased, the rest is kept as written; a
    URL that does not parse is its own target, as written.
    """
    method = str(args.get("method", "GET")).upper()
    url = str(args.get("url", ""))
    try:
        parts = urlsplit(url)
        host, port = (parts.hostname or "").rstrip("."), parts.port
    except ValueError:
        return f"{method} {url}"
    if "[" in parts.netloc:
        host = f"[{host}]"  # an IPv6 literal keeps its brackets, so the port stays unambiguous
    address = f"{host}:{port}" if port is not None else host
    query = f"?{parts.query}" if parts.query else ""
    return f"{method} {parts.scheme.lower()}://{address}{parts.path}{query}"


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
            "url": {
                "type": "string",
                "minLength": 1,
                "maxLength": 2048,
                "x-order": 1,
                "x-placeholder": "https://api.example.com/v1/orders",
            },
            "headers": HEADERS_SCHEMA,
            "query": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}},
            "json": {"description": "A JSON body (sets Content-Type: application/json)."},
            "body": {"type": "string", "description": "A raw text body; exclusive with json."},
            "timeout_seconds": {"type": "number", "exclusiveMinimum": 0, "maximum": 300, "default": 30},
            "save_as_artifact": {
                **SAVE_AS_ARTIFACT_SCHEMA,
                "description": "Keep a successful answer's body (up to 100 MB, streamed) as an artifact "
                "instead of returning it; the output then carries `artifact_id`.",
            },
            "index_as_document": INDEX_AS_DOCUMENT_SCHEMA,
        },
        "not": {"required": ["json", "body"]},
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "required": ["status_code", "headers"],
        "properties": {
            "status_code": {"type": "integer"},
            "headers": HEADERS_SCHEMA,
            "text": {"type": "string"},
            "json": {},
            "artifact_id": {"type": "string"},
            "artifact": ARTIFACT_SCHEMA,
            "document_id": {"type": "string"},
        },
    },
    handler=_http_request,
    risk="write",
    call_risk=_http_risk,
    call_target=_http_target,
    secret_fields=HTTP_SECRET_FIELDS,
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
