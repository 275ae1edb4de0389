"""The wire format between a service process and its sandbox processes.

Each message is a 4-byte big-endian length followed by that many bytes of ASCII JSON. Requests are
`{"op", "sources", "context", "predicate"}`; replies are `{"results": [...]}` or
`{"error": {...}, "index": i}` (plus `"retire": true` when the sandbox process is about to exit).
"""

from __future__ import annotations

import datetime as dt
import json
import struct
import uuid
from collections.abc import Mapping
from typing import Any, BinaryIO

from app.engine.templating.errors import (
    CONTEXT_TOO_LARGE,
    INVALID_CONTEXT,
    TemplateLimitError,
    TemplateRuntimeError,
)
from app.engine.templating.limits import MAX_CONTEXT_BYTES

HEADER = struct.Struct(">I")
# Replies carry at most the total output limit plus JSON escaping overhead.
MAX_REPLY_BYTES = 64 * 1024 * 1024


def _context_default(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    raise TypeError(f"a value of type {type(value).__name__!r} is not JSON data")


def encode_request(
    op: str, sources: list[str], context: Mapping[str, Any], *, predicate: bool = False
) -> bytes:
    """A framed request. Datetimes and UUIDs become ISO strings; other non-JSON data is refused."""
    try:
        body = json.dumps(
            {"op": op, "predicate": predicate, "sources": sources, "context": dict(context)},
            default=_context_default,
            allow_nan=False,
            separators=(",", ":"),
        ).encode("ascii")
    except (TypeError, ValueError, RecursionError) as exc:
        raise TemplateRuntimeError(
            f"the template context is not JSON data: {exc}", code=INVALID_CONTEXT
        ) from None
    if len(body) > MAX_CONTEXT_BYTES:
        raise TemplateLimitError(
            f"the template context is larger than {MAX_CONTEXT_BYTES} bytes as JSON", code=CONTEXT_TOO_LARGE
        )
    return HEADER.pack(len(body)) + body


def encode_reply(reply: dict[str, Any]) -> bytes:
    """A framed reply. Strings are ASCII-escaped, so lone surrogates cannot break the encoding."""
    body = json.dumps(reply, allow_nan=False, separators=(",", ":")).encode("ascii")
    return HEADER.pack(len(body)) + body


def read_frame(stream: BinaryIO, limit: int = MAX_CONTEXT_BYTES + 1024 * 1024) -> bytes | None:
    """Read one framed message body from a blocking stream; None at end of stream."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (size,) = HEADER.unpack(header)
    if size > limit:
        raise ValueError(f"message of {size} bytes is over the {limit} byte limit")
    body = stream.read(size)
    return body if len(body) == size else None
