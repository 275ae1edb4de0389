"""Definitions check themselves: ids, literal fields, JSON Schemas, handlers."""

from __future__ import annotations

from typing import Any

import pytest

from app.registry import (
    DYNAMIC_OUTPUT,
    ActionDefinition,
    ArtifactSpec,
    Capability,
    InvalidEntry,
    TriggerDefinition,
    actions,
)

OBJECT = {"type": "object"}


async def handler(ctx: Any, config: dict[str, Any]) -> Any:
    return config


def capability(**changes: Any) -> Capability:
    fields: dict[str, Any] = {
        "id": "http.request",
        "description": "Sends an HTTP request.",
        "input_schema": OBJECT,
        "output_schema": OBJECT,
        "handler": handler,
    }
    return Capability(**(fields | changes))


def action(**changes: Any) -> ActionDefinition:
    fields: dict[str, Any] = {
        "type": "http_request",
        "name": "HTTP request",
        "description": "Sends an HTTP request.",
        "config_schema": OBJECT,
        "output_contract": OBJECT,
        "handler": handler,
        "duration_class": "fast",
    }
    return ActionDefinition(**(fields | changes))


def trigger(**changes: Any) -> TriggerDefinition:
    fields: dict[str, Any] = {
        "type": "demo",
        "description": "A demo trigger.",
        "config_schema": OBJECT,
        "payload_schema": OBJECT,
    }
    return TriggerDefinition(**(fields | changes))


class TestCapabilityIds:
    @pytest.mark.parametrize(
        "capability_id", ["http.request", "slack.post_message", "search_space.query", "a.b.c", "x1.y_2"]
    )
    def test_accepted(self, capability_id: str) -> None:
        assert capability(id=capability_id).id == capability_id

    @pytest.mark.parametrize(
        "capability_id",
        [
            "http",  # one segment
            "Http.request",
            "http.Request",
            "http..request",
            ".http.request",
            "http.request.",
            "1http.request",
            "http.1request",
            "http-client.request",
            "http.request ",
            "",
            "a." + "b" * 100,
            "mcp.slack.post_message",  # leaks the handler kind
            "native.http.request",
            "plugin.demo.run",
            5,
        ],
    )
    def test_refused(self, capability_id: Any) -> None:
        with pytest.raises(InvalidEntry):
            capability(id=capability_id)

    def test_a_tier_name_is_fine_after_the_first_segment(self) -> None:
        assert capability(id="slack.mcp").id == "slack.mcp"


class TestSchemas:
    @pytest.mark.parametrize(
        "bad",
        [
            {"type": "objectish"},
            {"type": 5},
            {"required": "x"},
            {"properties": {"a": {"minLength": -1}}},
            {"$ref": "https://example.com/schema.json"},
            {"const": float("nan")},
            ["not", "a", "schema"],
        ],
    )
    def test_bad_schema_is_refused_everywhere(self, bad: Any) -> None:
        for build in (
            lambda: capability(input_schema=bad),
            lambda: capability(output_schema=bad),
            lambda: action(config_schema=bad),
            lambda: action(output_contract=bad),
            lambda: trigger(config_schema=bad),
            lambda: trigger(payload_schema=bad),
        ):
            with pytest.raises(InvalidEntry):
                build()

    def test_error_names_the_definition_and_the_field(self) -> None:
        with pytest.raises(InvalidEntry, match=r"capability 'http.request': output_schema"):
            capability(output_schema={"type": "objectish"})

    def test_local_references_are_fine(self) -> None:
        schema = {"$defs": {"name": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/name"}}}
        assert capability(input_schema=schema).input_schema == schema


class TestFields:
    @pytest.mark.parametrize(
        "changes",
        [
            {"risk": "delete"},
            {"tier": "remote"},
            {"description": ""},
            {"description": "   "},
            {"handler": "not callable"},
        ],
    )
    def test_capability_refuses(self, changes: dict[str, Any]) -> None:
        with pytest.raises(InvalidEntry):
            capability(**changes)

    def test_capability_defaults(self) -> None:
        item = capability()
        assert (item.risk, item.tier) == ("write", "native")

    @pytest.mark.parametrize(
        "changes",
        [
            {"type": "HTTP"},
            {"type": "http-request"},
            {"type": "mcp.call"},
            {"name": ""},
            {"duration_class": "instant"},
            {"tier": "cloud"},
            {"uses_capabilities": ["http.request"]},  # a list, not a tuple
            {"uses_capabilities": ("http",)},
            {"uses_capabilities": ("mcp.slack.post",)},
            {"produces_artifacts": ({"kind": "audio"},)},
            {"output_contract": "dynamic"},
            {"handler": None},
        ],
    )
    def test_action_refuses(self, changes: dict[str, Any]) -> None:
        with pytest.raises(InvalidEntry):
            action(**changes)

    def test_action_with_everything(self) -> None:
        item = action(
            type="podcast.generate",
            uses_capabilities=("llm.complete", "tts.speak"),
            produces_artifacts=(ArtifactSpec("audio", "permanent", "space"),),
            duration_class="long",
            tier="plugin",
        )
        assert item.output_schema == OBJECT

    def test_dynamic_output_needs_an_output_schema_in_the_config(self) -> None:
        with pytest.raises(InvalidEntry, match="output_schema"):
            action(output_contract=DYNAMIC_OUTPUT)
        config = {"type": "object", "properties": {"prompt": {"type": "string"}, "output_schema": OBJECT}}
        item = action(type="agent_task", config_schema=config, output_contract=DYNAMIC_OUTPUT)
        assert item.output_schema is None

    @pytest.mark.parametrize(
        "fields",
        [
            ("video",),
            ("audio", "forever"),
            ("audio", "default", "public"),
            ("audio", "default", "search_space"),
        ],
    )
    def test_artifact_spec_refuses(self, fields: tuple[str, ...]) -> None:
        with pytest.raises(InvalidEntry):
            ArtifactSpec(*fields)  # type: ignore[arg-type]

    def test_artifact_spec_defaults(self) -> None:
        assert ArtifactSpec("document") == ArtifactSpec("document", "default", "private")

    @pytest.mark.parametrize(
        "changes",
        [{"type": "Schedule"}, {"type": "plugin.device_offline"}, {"description": ""}, {"tier": "x"}],
    )
    def test_trigger_refuses(self, changes: dict[str, Any]) -> None:
        with pytest.raises(InvalidEntry):
            trigger(**changes)

    def test_definitions_are_frozen(self) -> None:
        item = capability()
        with pytest.raises(AttributeError):
            item.id = "other.id"  # type: ignore[misc]


class TestTryOutFields:
    def test_an_example_output_must_match_the_contract(self) -> None:
        contract = {
            "type": "object",
            "required": ["status_code"],
            "properties": {"status_code": {"type": "integer"}},
        }
        assert action(output_contract=contract, example_output={"status_code": 200}).example_output == {
            "status_code": 200
        }
        with pytest.raises(InvalidEntry, match="example_output"):
            action(output_contract=contract, example_output={"status_code": "ok"})

    def test_every_builtin_example_matches(self) -> None:
        assert {a.type for a in actions if a.example_output is not None} >= {
            "http_request",
            "slack_post",
            "send_email",
            "notification",
            "llm_complete",
            "kv_set",
            "kv_delete",
        }

    def test_a_call_risk_refines_the_default_and_internal_writes_are_marked(self) -> None:
        reads_on_get = capability(call_risk=lambda args: "read" if args.get("method") == "GET" else "write")
        assert reads_on_get.risk == "write"
        assert reads_on_get.effect_of({"method": "GET"}) == "read"
        assert reads_on_get.effect_of({"method": "POST"}) == "external_write"
        assert capability(internal=True).effect_of({}) == "internal_write"
        assert capability(risk="read", internal=True).effect_of({}) == "read"
        with pytest.raises(InvalidEntry):
            capability(call_risk="read")
