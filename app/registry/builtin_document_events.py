"""The knowledge store's event types: a document indexed, changed or deleted (`document.*`)."""

from __future__ import annotations

from typing import Any

from app.registry.core_events import CoreEvent

_DOCUMENT_PAYLOAD: dict[str, Any] = {
    "type": "object",
    "required": ["id", "title", "tags", "source", "source_url", "space_id", "revision"],
    "properties": {
        "id": {"type": "string", "format": "uuid"},
        "title": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "source": {"type": "string", "description": "api, upload, artifact or http_request"},
        "source_url": {"type": ["string", "null"]},
        "space_id": {"type": "string", "format": "uuid"},
        "revision": {"type": "integer"},
    },
}

DOCUMENT_EVENTS: tuple[CoreEvent, ...] = (
    CoreEvent(
        type="document.added",
        description="A document was indexed for the first time: it is searchable now.",
        payload_schema=_DOCUMENT_PAYLOAD,
    ),
    CoreEvent(
        type="document.updated",
        description="A document changed: its text was indexed again, or its title, tags or metadata edited.",
        payload_schema=_DOCUMENT_PAYLOAD,
    ),
    CoreEvent(
        type="document.deleted",
        description="A document (and its chunks) was deleted.",
        payload_schema=_DOCUMENT_PAYLOAD,
    ),
)
