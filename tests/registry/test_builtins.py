"""The built-in triggers and actions, and their schemas against the definition's pydantic models."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from app.definitions.automation import EventConfig, ScheduleConfig, WebhookConfig
from app.definitions.json_schema import CompiledSchema, compiled_schema
from app.engine.filters import FILTER_SCHEMA, check_filter
from app.registry import actions, triggers
from app.registry.builtin_actions import BUILTIN_ACTIONS, TRANSFORM_DATA
from app.registry.builtin_triggers import BUILTIN_TRIGGERS


def test_builtins_are_registered_on_import() -> None:
    assert [item.type for item in triggers][:3] == ["schedule", "webhook", "event"]
    assert actions.require("transform_data") is TRANSFORM_DATA


def test_registering_the_builtins_again_changes_nothing() -> None:
    before = (list(triggers), list(actions))
    for trigger in BUILTIN_TRIGGERS:
        triggers.register(trigger)
    for action in BUILTIN_ACTIONS:
        actions.register(action)
    assert (list(triggers), list(actions)) == before


def is_valid(schema: dict[str, Any], document: Any) -> bool:
    return is_valid_by(compiled_schema(schema), document)


def is_valid_by(validator: CompiledSchema, document: Any) -> bool:
    return not validator.violations(document)


def pydantic_accepts(model: type[BaseModel], document: Any) -> bool:
    try:
        model.model_validate_json(json.dumps(document))  # as the API receives it: JSON text
    except ValidationError:
        return False
    return True


FILTER = {"file.mime_type": {"starts_with": "image/"}, "$not": {"file.size": {"gt": 10}}}

SAMPLES: list[Any] = [
    ("schedule", ScheduleConfig, {"cron": "0 9 * * 1-5"}),
    ("schedule", ScheduleConfig, {"cron": "*/5 * * * *", "timezone": "Africa/Kigali", "catch_up": "none"}),
    ("schedule", ScheduleConfig, {}),
    ("schedule", ScheduleConfig, {"cron": ""}),
    ("schedule", ScheduleConfig, {"cron": 5}),
    ("schedule", ScheduleConfig, {"cron": "x" * 120}),
    ("schedule", ScheduleConfig, {"cron": "x" * 121}),
    ("schedule", ScheduleConfig, {"cron": "x", "extra": 1}),
    ("schedule", ScheduleConfig, {"cron": "x", "catch_up": "all"}),
    ("schedule", ScheduleConfig, {"cron": "x", "timezone": ""}),
    ("schedule", ScheduleConfig, {"cron": "x", "timezone": None}),
    ("schedule", ScheduleConfig, {"cron": "x", "timezone": "x" * 65}),
    ("schedule", ScheduleConfig, []),
    ("webhook", WebhookConfig, {}),
    ("webhook", WebhookConfig, {"input_mapping": {}}),
    ("webhook", WebhookConfig, {"input_mapping": {"name": "$.user.name"}}),
    ("webhook", WebhookConfig, {"input_mapping": {"name": ""}}),
    ("webhook", WebhookConfig, {"input_mapping": {"name": 5}}),
    ("webhook", WebhookConfig, {"input_mapping": {"name": "x" * 501}}),
    ("webhook", WebhookConfig, {"input_mapping": []}),
    ("webhook", WebhookConfig, {"input_mapping": None}),
    ("webhook", WebhookConfig, {"other": 1}),
    ("webhook", WebhookConfig, "x"),
    ("event", EventConfig, {"event_type": "drive.file_added"}),
    ("event", EventConfig, {"event_type": "drive.*"}),
    ("event", EventConfig, {"event_type": "automation.run.succeeded", "filters": None}),
    ("event", EventConfig, {"event_type": "drive.file_added", "filters": FILTER}),
    ("event", EventConfig, {"event_type": "drive.file_added", "filters": {}}),
    ("event", EventConfig, {"event_type": "drive.*.added"}),
    ("event", EventConfig, {"event_type": "drive."}),
    ("event", EventConfig, {"event_type": "a b"}),
    ("event", EventConfig, {"event_type": ""}),
    ("event", EventConfig, {"event_type": "x" * 201}),
    ("event", EventConfig, {"event_type": "a.b", "filters": []}),
    ("event", EventConfig, {"event_type": "a.b", "filters": "status == open"}),
    ("event", EventConfig, {"event_type": "a.b", "other": 1}),
    ("event", EventConfig, {}),
    # RE2's `$` ends the text, as ECMA-262's and pydantic's do (Python's `re` would accept the newline).
    ("event", EventConfig, {"event_type": "drive.file_added\n"}),
]


@pytest.mark.parametrize(("trigger_type", "model", "document"), SAMPLES)
def test_trigger_config_schema_agrees_with_the_model(
    trigger_type: str, model: type[BaseModel], document: Any
) -> None:
    schema = triggers.require(trigger_type).config_schema
    assert is_valid(schema, document) is pydantic_accepts(model, document)


class TestEventFilters:
    schema = triggers.require("event").config_schema

    @pytest.mark.parametrize(
        "filters",
        [
            {"x": {"bogus": 1}},
            {"x": {"gt": "1"}},
            {"$and": []},
            {"a..b": 1},
        ],
    )
    def test_schema_refuses_what_the_filter_grammar_refuses(self, filters: dict[str, Any]) -> None:
        document = {"event_type": "a.b", "filters": filters}
        assert check_filter(filters)
        assert not is_valid(self.schema, document)
        # The pydantic model leaves filters loose; the save-time validator runs check_filter.
        assert pydantic_accepts(EventConfig, document)

    def test_filters_property_embeds_the_grammar(self) -> None:
        assert self.schema["properties"]["filters"]["anyOf"] == [
            {"$ref": FILTER_SCHEMA["$ref"]},
            {"type": "null"},
        ]
        for name, definition in FILTER_SCHEMA["$defs"].items():
            assert self.schema["$defs"][name] == definition

    def test_embedding_leaves_filter_schema_untouched(self) -> None:
        assert "properties" not in FILTER_SCHEMA
        assert FILTER_SCHEMA["$id"] == "urn:automations:filter:1.0"


class TestPayloadSchemas:
    def test_schedule(self) -> None:
        validator = compiled_schema(triggers.require("schedule").payload_schema)
        first = {
            "fired_at": "2025-01-01T09:00:05Z",
            "scheduled_for": "2025-01-01T09:00:00Z",
            "last_fired_at": None,
        }
        assert is_valid_by(validator, first)
        assert is_valid_by(validator, first | {"last_fired_at": "2024-12-31T09:00:03Z"})
        assert not is_valid_by(validator, {"fired_at": "2025-01-01T09:00:05Z"})

    def test_webhook_takes_any_object(self) -> None:
        validator = compiled_schema(triggers.require("webhook").payload_schema)
        assert is_valid_by(validator, {"anything": [1, {"goes": True}]})
        assert not is_valid_by(validator, [1])

    def test_event(self) -> None:
        validator = compiled_schema(triggers.require("event").payload_schema)
        event = {"event_type": "drive.file_added", "source_id": None, "payload": {"file": {"name": "a.png"}}}
        assert is_valid_by(validator, event)
        assert is_valid_by(validator, event | {"event_id": "e1", "occurred_at": "2025-01-01T00:00:00Z"})
        assert not is_valid_by(validator, {"event_type": "drive.file_added", "payload": {}})


class TestTransformData:
    async def test_returns_the_rendered_output(self) -> None:
        for output in ({"a": [1, 2]}, [1, "x"], "text", 3, None):
            assert await TRANSFORM_DATA.handler(None, {"output": output}) == output

    def test_contract(self) -> None:
        assert TRANSFORM_DATA.uses_capabilities == ()
        assert TRANSFORM_DATA.duration_class == "fast"
        config = compiled_schema(TRANSFORM_DATA.config_schema)
        assert is_valid_by(config, {"output": None})
        assert not is_valid_by(config, {})
        assert not is_valid_by(config, {"output": 1, "extra": 2})
        output = compiled_schema(TRANSFORM_DATA.output_contract)  # type: ignore[arg-type]
        assert all(is_valid_by(output, value) for value in ({"a": 1}, [1], "s", 1.5, None, True))
