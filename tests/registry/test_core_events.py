"""The core's event types in the catalog: each with the payload it promises, and a way for another
module to add its own; artifact-writing actions say what they produce."""

from __future__ import annotations

from typing import Any

import pytest

from app.registry import CoreEvent, InvalidEntry, Registry, RegistryConflict, catalog, core_events
from app.registry.registries import native_namespaces

OBJECT: dict[str, Any] = {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}
RUN_ENDS = ("succeeded", "failed", "cancelled", "timed_out")


def _events(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["type"]: item for item in answer["events"]}


class TestCatalog:
    def test_run_and_approval_events_are_listed_with_schemas(self) -> None:
        events = _events(catalog())
        for status in RUN_ENDS:
            entry = events[f"automation.run.{status}"]
            assert entry["tier"] == "native"
            assert entry["payload_schema"]["properties"]["status"] == {"const": status}
            assert entry["webhook_schema"]["properties"]["status"] == {"const": status}
        dropped = events["automation.run.dropped"]
        assert dropped["payload_schema"] is None, "a dropped run is delivered, never published on the bus"
        assert dropped["webhook_schema"] is not None
        for name in ("approval.requested", "approval.decided"):
            assert events[name]["payload_schema"] is None
            assert "capability" in events[name]["webhook_schema"]["required"]

    def test_core_events_come_first_and_sorted(self) -> None:
        types = [item["type"] for item in catalog()["events"]]
        assert types == sorted(types)

    def test_a_module_s_own_core_event_appears_once_registered(self) -> None:
        registry: Registry[CoreEvent] = Registry("event", CoreEvent, lambda item: item.type)
        added = CoreEvent("document.added", "A document was added to the space.", payload_schema=OBJECT)
        registry.register(added)
        registry.register(
            CoreEvent("document.added", "A document was added to the space.", payload_schema=OBJECT)
        )
        (entry,) = catalog(core_events=registry)["events"]
        assert entry == {
            "type": "document.added",
            "tier": "native",
            "description": "A document was added to the space.",
            "payload_schema": OBJECT,
            "webhook_schema": None,
        }
        entry["payload_schema"]["properties"].clear()
        assert added.payload_schema == OBJECT, "the answer is a copy"
        with pytest.raises(RegistryConflict):
            registry.register(CoreEvent("document.added", "Something else.", payload_schema=OBJECT))

    def test_the_core_event_namespaces_are_reserved_from_plugins(self) -> None:
        assert {"automation", "approval"} <= native_namespaces()
        assert all(event.type.split(".", 1)[0] in native_namespaces() for event in core_events)

    @pytest.mark.parametrize(
        ("changes", "message"),
        [
            ({"type": "Document.Added"}, "lowercase dotted"),
            ({"type": "document"}, "lowercase dotted"),
            ({"description": "  "}, "description"),
            ({"payload_schema": None}, "neither"),
            ({"payload_schema": {"type": "nonsense"}}, "payload_schema"),
            ({"webhook_schema": {"$ref": "https://example.com/s.json"}}, "webhook_schema"),
        ],
    )
    def test_a_bad_event_type_is_a_start_up_error(self, changes: dict[str, Any], message: str) -> None:
        fields: dict[str, Any] = {"type": "document.added", "description": "Added.", "payload_schema": OBJECT}
        with pytest.raises(InvalidEntry, match=message):
            CoreEvent(**(fields | changes))


class TestProducesArtifacts:
    def test_actions_that_write_artifacts_declare_them(self) -> None:
        actions = {item["type"]: item for item in catalog()["actions"]}
        assert [spec["kind"] for spec in actions["transform_data"]["produces_artifacts"]] == ["data"]
        kinds = {spec["kind"] for spec in actions["http_request"]["produces_artifacts"]}
        assert kinds == {"document", "audio", "image", "data"}
        assert actions["slack_post"]["produces_artifacts"] == []
