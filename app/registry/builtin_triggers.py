"""The built-in triggers: schedule, webhook and event.

Their config schemas come from the pydantic config models of the definition, so the API's validation
and the published schemas cannot drift apart. The event trigger's `filters` is the one property the
model leaves loose (a filter is checked by the engine's grammar); its schema embeds FILTER_SCHEMA.
"""

from __future__ import annotations

import copy
from typing import Any

from app.definitions.automation import EventConfig, ScheduleConfig, WebhookConfig
from app.definitions.filter_schema import FILTER_SCHEMA
from app.registry.models import TriggerDefinition

_DATE_TIME = {"type": "string", "format": "date-time"}


def _event_config_schema() -> dict[str, Any]:
    schema = EventConfig.model_json_schema(mode="validation")
    defs = schema.setdefault("$defs", {})
    filter_defs = copy.deepcopy(FILTER_SCHEMA["$defs"])
    if clash := defs.keys() & filter_defs.keys():
        raise RuntimeError(f"EventConfig's schema already defines {sorted(clash)}")
    defs.update(filter_defs)
    # FILTER_SCHEMA's references are '#/$defs/...': with its $defs moved to this root they still resolve.
    filters = schema["properties"]["filters"]
    filters["anyOf"] = [
        {"$ref": FILTER_SCHEMA["$ref"]} if branch.get("type") == "object" else branch
        for branch in filters["anyOf"]
    ]
    return schema


SCHEDULE = TriggerDefinition(
    type="schedule",
    description="Fires on a cron schedule in a time zone.",
    config_schema=ScheduleConfig.model_json_schema(mode="validation"),
    payload_schema={
        "type": "object",
        "required": ["fired_at", "scheduled_for", "last_fired_at"],
        "properties": {
            "fired_at": {**_DATE_TIME, "description": "When the fire happened."},
            "scheduled_for": {
                **_DATE_TIME,
                "description": "The cron slot the fire stands for; earlier than fired_at after downtime.",
            },
            "last_fired_at": {
                "type": ["string", "null"],
                "format": "date-time",
                "description": "The trigger's previous fire; null on the first.",
            },
        },
        "additionalProperties": False,
    },
)

WEBHOOK = TriggerDefinition(
    type="webhook",
    description="Fires when the automation's webhook URL receives a POST with a valid token.",
    config_schema=WebhookConfig.model_json_schema(mode="validation"),
    payload_schema={"type": "object", "description": "The JSON body of the request, as posted."},
)

EVENT = TriggerDefinition(
    type="event",
    description="Fires when a domain event of the given type is published and passes the filters.",
    config_schema=_event_config_schema(),
    payload_schema={
        "type": "object",
        "required": ["event_type", "source_id", "payload"],
        "properties": {
            "event_id": {"type": "string", "description": "The event's id."},
            "event_type": {"type": "string", "description": "The published type, e.g. drive.file_added."},
            "source_id": {"type": ["string", "null"], "description": "What published the event, if known."},
            "occurred_at": {**_DATE_TIME, "description": "When the event was published."},
            "payload": {"type": "object", "description": "The event's own data; filters apply to it."},
        },
    },
)

BUILTIN_TRIGGERS: tuple[TriggerDefinition, ...] = (SCHEDULE, WEBHOOK, EVENT)
