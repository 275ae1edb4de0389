"""JSON request bodies: content type, size, depth and storable text, checked before any model sees them.

Starlette parses with `json.loads` as-is: deep nesting reaches Python's recursion limit, `NaN`
is accepted, and NUL characters, lone surrogates or numbers that overflow to infinity parse fine but
are rejected later by PostgreSQL. Each of those would be a 500; here each is a clear 4xx that changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from app.api.deps import get_settings
from app.definitions.pointers import join
from app.errors import BadRequest, ErrorDetail, PayloadTooLarge, UnsupportedMediaType

BODY_METHODS = {"POST", "PUT", "PATCH"}
# Bodies above this are parsed and checked on a thread: tens of milliseconds of CPU per megabyte
# would otherwise hold up every other request on the event loop.
OFF_LOOP_BYTES = 64 * 1024


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def is_json_content_type(value: str | None) -> bool:
    if not value:
        return False
    media = value.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def check_document(document: Any, max_depth: int) -> None:
    """Refuse nesting deeper than `max_depth`, and text or numbers PostgreSQL cannot store, with a pointer."""
    stack: list[tuple[Any, int, tuple[str | int, ...]]] = [(document, 1, ())]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, dict | list) and depth > max_depth:
            raise BadRequest(
                f"The JSON body nests deeper than {max_depth} levels.",
                code="json_too_deep",
                details=[ErrorDetail(path=join(*path), message=f"more than {max_depth} levels of nesting")],
            )
        if isinstance(node, dict):
            for key, value in node.items():
                _check_text(key, (*path, key))
                stack.append((value, depth + 1, (*path, key)))
        elif isinstance(node, list):
            stack.extend((value, depth + 1, (*path, index)) for index, value in enumerate(node))
        elif isinstance(node, str):
            _check_text(node, path)
        elif isinstance(node, float) and not math.isfinite(node):
            # `1e400` parses to infinity: PostgreSQL's JSON refuses it, and pydantic would store null.
            raise BadRequest(
                "The JSON body contains a number too large to store.",
                code="number_out_of_range",
                details=[ErrorDetail(path=join(*path), message="the number overflows a 64-bit float")],
            )


def _check_text(text: str, path: tuple[str | int, ...]) -> None:
    if text.isascii():
        if "\x00" in text:
            raise _bad_text(path, "contains a NUL character (\\u0000), which cannot be stored")
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _bad_text(path, "contains a lone surrogate (invalid Unicode)") from None
    if "\x00" in text:
        raise _bad_text(path, "contains a NUL character (\\u0000), which cannot be stored")


def _bad_text(path: tuple[str | int, ...], message: str) -> BadRequest:
    return BadRequest(
        "The JSON body contains text that cannot be stored.",
        code="invalid_text",
        details=[ErrorDetail(path=join(*path), message=message)],
    )


async def read_json_body(request: Request, *, max_bytes: int, max_depth: int) -> Any:
    """Read, bound, parse and check a JSON body; the parsed value is cached on the request."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise PayloadTooLarge(f"The request body is larger than {max_bytes} bytes.")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise PayloadTooLarge(f"The request body is larger than {max_bytes} bytes.")
        chunks.append(chunk)
    raw = b"".join(chunks)
    request._body = raw
    if not raw:
        return None
    if not is_json_content_type(request.headers.get("content-type")):
        raise UnsupportedMediaType()
    if len(raw) > OFF_LOOP_BYTES:
        document = await asyncio.to_thread(parse_json_document, raw, max_depth)
    else:
        document = parse_json_document(raw, max_depth)
    request._json = document
    return document


def parse_json_document(raw: bytes, max_depth: int) -> Any:
    """Parse JSON text and check it (`check_document`); every refusal is a 4xx `AppError`."""
    try:
        document = json.loads(raw, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as exc:
        position = f" at character {exc.pos}" if isinstance(exc, json.JSONDecodeError) else ""
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc) or "nesting too deep"
        raise BadRequest(
            f"The request body is not valid JSON{position}: {reason}.",
            code="malformed_json",
            details=[ErrorDetail(path="", message=reason)],
        ) from None
    check_document(document, max_depth)
    return document


class JsonBodyRoute(APIRoute):
    """A route that checks JSON bodies before FastAPI parses them into models."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def checked_handler(request: Request) -> Response:
            if request.method in BODY_METHODS:
                settings = get_settings(request)
                await read_json_body(
                    request, max_bytes=settings.max_body_bytes, max_depth=settings.max_json_depth
                )
            return await handler(request)

        return checked_handler
