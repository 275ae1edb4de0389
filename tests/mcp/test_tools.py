"""What a listed tool becomes: its id, its risk, its schema hash (and so what counts as drift)."""

from __future__ import annotations

import copy

import pytest

from app.services.mcp.tools import (
    capability_id_for,
    is_destructive,
    prefix_problem,
    risk_hint,
    schema_hash,
    schema_problem,
)

INPUT = {
    "type": "object",
    "title": "Note",
    "description": "A note to create.",
    "properties": {
        "text": {"type": "string", "description": "What to write.", "default": ""},
        "kind": {"type": "string", "enum": ["a", "b"]},
        "title": {"type": "string"},
    },
    "required": ["text"],
}
OUTPUT = {"type": "object", "properties": {"id": {"type": "string"}}}


def changed(schema: dict, path: list, value) -> dict:  # type: ignore[no-untyped-def]
    result = copy.deepcopy(schema)
    target = result
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return result


class TestSchemaHash:
    def test_same_schemas_same_hash(self) -> None:
        assert schema_hash(INPUT, OUTPUT, {}) == schema_hash(copy.deepcopy(INPUT), copy.deepcopy(OUTPUT), {})

    def test_key_order_does_not_matter(self) -> None:
        reordered = dict(reversed(list(INPUT.items())))
        assert schema_hash(reordered, OUTPUT, {}) == schema_hash(INPUT, OUTPUT, {})

    @pytest.mark.parametrize(
        "path",
        [
            ["description"],
            ["title"],
            ["properties", "text", "description"],
            ["properties", "text", "default"],
            ["properties", "kind", "enum"],
        ],
    )
    def test_descriptive_keywords_are_not_drift(self, path: list) -> None:  # type: ignore[type-arg]
        assert schema_hash(changed(INPUT, path, ["other"]), OUTPUT, {}) == schema_hash(INPUT, OUTPUT, {})

    def test_a_required_list_change_is_drift(self) -> None:
        assert schema_hash(changed(INPUT, ["required"], ["text", "kind"]), OUTPUT, {}) != schema_hash(
            INPUT, OUTPUT, {}
        )

    def test_a_type_change_is_drift(self) -> None:
        before = schema_hash(INPUT, OUTPUT, {})
        assert schema_hash(changed(INPUT, ["properties", "text", "type"], "integer"), OUTPUT, {}) != before

    def test_a_property_named_title_is_a_property_not_a_keyword(self) -> None:
        before = schema_hash(INPUT, OUTPUT, {})
        assert schema_hash(changed(INPUT, ["properties", "title", "type"], "integer"), OUTPUT, {}) != before

    def test_an_output_schema_change_is_drift(self) -> None:
        assert schema_hash(INPUT, {"type": "object"}, {}) != schema_hash(INPUT, OUTPUT, {})
        assert schema_hash(INPUT, None, {}) != schema_hash(INPUT, OUTPUT, {})

    def test_stopping_to_claim_read_only_is_drift(self) -> None:
        assert schema_hash(INPUT, OUTPUT, {"readOnlyHint": True}) != schema_hash(INPUT, OUTPUT, {})
        assert schema_hash(INPUT, OUTPUT, {"destructiveHint": False}) != schema_hash(INPUT, OUTPUT, {})

    def test_other_annotations_are_not_drift(self) -> None:
        hints = {"readOnlyHint": True}
        with_title = {**hints, "title": "New title", "openWorldHint": False}
        assert schema_hash(INPUT, OUTPUT, with_title) == schema_hash(INPUT, OUTPUT, hints)


class TestCapabilityIds:
    @pytest.mark.parametrize(
        ("name", "expected"),
        [
            ("create_note", "crm.create_note"),
            ("Create-Note", "crm.create_note"),
            ("notes/list  all", "crm.notes_list_all"),
            ("2fa.check", "crm.t_2fa_check"),
            ("__x__", "crm.x"),
        ],
    )
    def test_sanitised(self, name: str, expected: str) -> None:
        assert capability_id_for("crm", name) == expected

    def test_nothing_left(self) -> None:
        assert capability_id_for("crm", "!!!") is None
        assert capability_id_for("crm", "名前") is None

    def test_long_names_fit_the_id_limit(self) -> None:
        capability_id = capability_id_for("crm", "x" * 300)
        assert capability_id is not None
        assert len(capability_id) == 100

    @pytest.mark.parametrize("prefix", ["Crm", "1crm", "crm.x", "", "mcp", "native", "plugin", "database"])
    def test_bad_prefixes(self, prefix: str) -> None:
        assert prefix_problem(prefix) is not None

    def test_good_prefix(self) -> None:
        assert prefix_problem("crm_2") is None


class TestRisk:
    def test_only_an_explicit_read_only_hint_reads(self) -> None:
        assert risk_hint({"readOnlyHint": True}) == "read"
        assert risk_hint({}) == "write"
        assert risk_hint({"readOnlyHint": False}) == "write"
        assert risk_hint({"readOnlyHint": "true"}) == "write"

    def test_destructive_follows_the_hint_and_the_spec_default(self) -> None:
        assert is_destructive({}) is True
        assert is_destructive({"destructiveHint": False}) is False
        assert is_destructive({"destructiveHint": True}) is True
        assert is_destructive({"readOnlyHint": True}) is False


class TestSchemaProblems:
    def test_valid(self) -> None:
        assert schema_problem(INPUT, OUTPUT) is None
        assert schema_problem(INPUT, None) is None

    def test_not_an_object(self) -> None:
        assert "inputSchema" in (schema_problem(["no"], None) or "")
        assert "inputSchema" in (schema_problem(None, None) or "")

    def test_not_json_schema(self) -> None:
        assert "not a valid JSON Schema" in (schema_problem({"type": "nonsense"}, None) or "")
        assert "outputSchema" in (schema_problem(INPUT, {"minimum": "ten"}) or "")
