"""Event types the core itself publishes, with the payload each promises (shown in the catalog)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CoreEvent:
    type: str
    description: str
    payload_schema: dict[str, Any]


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
        "document.added",
        "A document was indexed for the first time: it is searchable now.",
        _DOCUMENT_PAYLOAD,
    ),
    CoreEvent(
        "document.updated",
        "A document changed: new text was indexed again, or its title, tags or metadata were edited.",
        _DOCUMENT_PAYLOAD,
    ),
    CoreEvent("document.deleted", "A document (and its chunks) was deleted.", _DOCUMENT_PAYLOAD),
)

CORE_EVENTS: tuple[CoreEvent, ...] = DOCUMENT_EVENTS
