"""The catalog served at GET /api/v1/catalog."""

from __future__ import annotations

import json
from typing import Any

from app.registry import (
    DYNAMIC_OUTPUT,
    ActionDefinition,
    ArtifactSpec,
    Capability,
    Registry,
    TriggerDefinition,
    catalog,
)

OBJECT = {"type": "object"}


async def handler(ctx: Any, args: dict[str, Any]) -> Any:
    return args


def registries() -> dict[str, Any]:
    capabilities = Registry("capability", Capability, lambda item: item.id)
    actions = Registry("action", ActionDefinition, lambda item: item.type)
    triggers = Registry("trigger", TriggerDefinition, lambda item: item.type)
    for capability_id, tier in (("slack.post_message", "mcp"), ("http.request", "native")):
        capabilities.register(
            Capability(
                id=capability_id,
                description="Does a thing.",
                input_schema=OBJECT,
                output_schema=OBJECT,
                handler=handler,
                risk="write",
                tier=tier,  # type: ignore[arg-type]
            )
        )
    actions.register(
        ActionDefinition(
            type="agent_task",
            name="Agent task",
            description="Asks a model.",
            config_schema={"type": "object", "properties": {"output_schema": OBJECT}},
            output_contract=DYNAMIC_OUTPUT,
            handler=handler,
            duration_class="medium",
            uses_capabilities=("llm.complete",),
            produces_artifacts=(ArtifactSpec("data", "transient", "private"),),
        )
    )
    triggers.register(
        TriggerDefinition(type="demo", description="Demo.", config_schema=OBJECT, payload_schema=OBJECT)
    )
    return {"capabilities": capabilities, "actions": actions, "triggers": triggers}


def test_catalog_shape() -> None:
    answer = catalog(**registries())
    assert [item["id"] for item in answer["capabilities"]] == ["http.request", "slack.post_message"]
    assert answer["capabilities"][1] == {
        "id": "slack.post_message",
        "tier": "mcp",
        "description": "Does a thing.",
        "risk": "write",
        "input_schema": OBJECT,
        "output_schema": OBJECT,
    }
    assert answer["actions"] == [
        {
            "type": "agent_task",
            "tier": "native",
            "name": "Agent task",
            "description": "Asks a model.",
            "config_schema": {"type": "object", "properties": {"output_schema": OBJECT}},
            "dynamic_output": True,
            "output_schema": None,
            "uses_capabilities": ["llm.complete"],
            "produces_artifacts": [{"kind": "data", "retention": "transient", "visibility": "private"}],
            "duration_class": "medium",
        }
    ]
    assert answer["triggers"] == [
        {
            "type": "demo",
            "tier": "native",
            "description": "Demo.",
            "config_schema": OBJECT,
            "payload_schema": OBJECT,
        }
    ]


def test_default_catalog_is_json_and_leaks_no_handler() -> None:
    answer = catalog()
    text = json.dumps(answer, allow_nan=False)
    assert json.loads(text) == answer
    assert "handler" not in text
    assert "function" not in text
    assert {item["type"] for item in answer["triggers"]} >= {"schedule", "webhook", "event"}
    assert "transform_data" in {item["type"] for item in answer["actions"]}
    for section in answer.values():
        assert all(item["tier"] in ("native", "mcp", "plugin") for item in section)


def test_catalog_is_stable_and_sorted() -> None:
    answer = catalog()
    assert catalog() == answer
    for section, key in (("capabilities", "id"), ("actions", "type"), ("triggers", "type")):
        keys = [item[key] for item in answer[section]]
        assert keys == sorted(keys)


def test_changing_the_answer_leaves_the_registry_alone() -> None:
    answer = catalog()
    event = next(item for item in answer["triggers"] if item["type"] == "event")
    event["config_schema"]["properties"].clear()
    assert catalog()["triggers"] != answer["triggers"]
