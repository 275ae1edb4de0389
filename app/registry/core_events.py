"""Event types the core emits, with the payloads it promises: published in the catalog beside the
event types of plugins, so an `event` trigger's filters and a webhook receiver are written against a
schema rather than against an example.

Another module adds its own by building a `CoreEvent` and passing it to `register_core_event` (in
`app.registry.registries`) when it is imported; the catalog lists it from then on.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from app.registry.base import InvalidEntry
from app.registry.models import check_json_schema

_TYPE = re.compile(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+")
MAX_TYPE_LENGTH = 200


@dataclass(frozen=True)
class CoreEvent:
    """One event type of the core.

    `payload_schema` describes the payload published on the event bus (what an `event` trigger's
    filters read, and `trigger.payload.payload` in templates); None when the type never reaches the bus.
    `webhook_schema` describes the `data` object of the signed webhook delivery; None when the type is
    never delivered to webhook endpoints. At least one of the two is set.
    """

    type: str
    description: str
    payload_schema: dict[str, Any] | None = None
    webhook_schema: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        owner = f"event {self.type!r}"
        if (
            not isinstance(self.type, str)
            or len(self.type) > MAX_TYPE_LENGTH
            or not _TYPE.fullmatch(self.type)
        ):
            raise InvalidEntry(f"{owner}: must be lowercase dotted words with at least two segments")
        if not isinstance(self.description, str) or not self.description.strip():
            raise InvalidEntry(f"{owner}: description must be a non-empty string")
        if self.payload_schema is None and self.webhook_schema is None:
            raise InvalidEntry(f"{owner}: declares neither a bus payload nor a webhook body")
        for name in ("payload_schema", "webhook_schema"):
            schema = getattr(self, name)
            if schema is not None:
                check_json_schema(owner, name, schema)

    def as_catalog_entry(self) -> dict[str, Any]:
        """The catalog's view: a fresh structure the caller may change."""
        return {
            "type": self.type,
            "tier": "native",
            "description": self.description,
            "payload_schema": copy.deepcopy(self.payload_schema),
            "webhook_schema": copy.deepcopy(self.webhook_schema),
        }
