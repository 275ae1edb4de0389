"""The one JSON Schema entry point: RE2 patterns, refusals with pointers, linear checks, a budget."""

from __future__ import annotations

import ast
import copy
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from app.definitions import json_schema
from app.definitions.json_schema import (
    SchemaRefused,
    ValidationTooCostly,
    check_schema_document,
    compiled_schema,
    schema_problems,
)
from tests.support.backtracking import BACKTRACKING


class TestPatternsRunOnRe2:
    @pytest.mark.parametrize(("pattern", "hostile"), BACKTRACKING)
    def test_pattern_keyword(self, pattern: str, hostile: str) -> None:
        schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}}
        found = compiled_schema(schema).violations({"s": hostile})
        assert [v.pointer for v in found] == ["/s"]
        assert "does not match" in found[0].message

    @pytest.mark.parametrize(("pattern", "hostile"), BACKTRACKING)
    def test_pattern_properties_and_the_keywords_that_read_them(self, pattern: str, hostile: str) -> None:
        for closing in ({"additionalProperties": False}, {"unevaluatedProperties": False}):
            schema = {"type": "object", "patternProperties": {pattern: {"type": "integer"}}, **closing}
            found = compiled_schema(schema).violations({hostile: 1})
            assert len(found) == 1, closing

    @pytest.mark.parametrize(("pattern", "hostile"), BACKTRACKING[:3])
    def test_property_names(self, pattern: str, hostile: str) -> None:
        schema = {"type": "object", "propertyNames": {"pattern": pattern}}
        assert compiled_schema(schema).violations({hostile: 1})

    def test_matching_values_still_pass(self) -> None:
        schema = {
            "properties": {"s": {"pattern": r"^(a+)+$"}},
            "patternProperties": {"^x_": {"type": "string"}},
        }
        assert compiled_schema(schema).violations({"s": "aaaa", "x_1": "ok"}) == []

    def test_dollar_ends_the_text_as_in_ecma_262(self) -> None:
        # Python's `re` lets `$` match before a final newline; RE2 (like JSON Schema's ECMA-262) does not.
        assert compiled_schema({"pattern": "^ab$"}).violations("ab\n")
        assert re.search("^ab$", "ab\n")

    def test_regex_format_is_asserted_with_re2(self) -> None:
        schema = {"type": "string", "format": "regex"}
        assert compiled_schema(schema).violations("^(a+)+$") == []
        (violation,) = compiled_schema(schema).violations(r"(a)\1")
        assert "regex" in violation.message

    def test_other_formats_stay_annotations(self) -> None:
        assert compiled_schema({"format": "email"}).violations("not an email") == []

    def test_library_code_uses_only_the_patched_search(self) -> None:
        # The RE2 swap covers the modules that call `re.search`; a library upgrade that matches
        # patterns anywhere else (or with another function) must fail here, not in production.
        root = Path(jsonschema.__file__).parent
        calls: set[tuple[str, str]] = set()
        for path in root.glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "re"
                ) and node.attr not in {"compile", "ASCII", "error", "IGNORECASE", "VERBOSE"}:
                    calls.add((path.stem, node.attr))
        assert calls <= {("_keywords", "search"), ("_utils", "search"), ("_legacy_keywords", "search")}
        assert {module for module, _ in calls} == {"_keywords", "_utils", "_legacy_keywords"}
        for module in (jsonschema._keywords, jsonschema._utils, jsonschema._legacy_keywords):
            assert module.re is not re  # type: ignore[attr-defined]


class TestRefusedAtCheck:
    @pytest.mark.parametrize(
        ("schema", "pointer", "reason"),
        [
            ({"pattern": r"(a)\1"}, "/pattern", "backreferences"),
            ({"properties": {"s": {"pattern": "(?=a)a"}}}, "/properties/s/pattern", "lookaround"),
            ({"items": {"pattern": "(?<!x)y"}}, "/items/pattern", "lookaround"),
            ({"$defs": {"d": {"pattern": "(?!a)"}}}, "/$defs/d/pattern", "lookaround"),
            ({"patternProperties": {"(?<=a)b": {}}}, "/patternProperties", "lookaround"),
            ({"pattern": "a{1001}"}, "/pattern", "repetition"),
            ({"pattern": "a" * 5000}, "/pattern", "at most"),
        ],
    )
    def test_patterns_re2_cannot_run(self, schema: dict[str, Any], pointer: str, reason: str) -> None:
        with pytest.raises(SchemaRefused) as refused:
            check_schema_document(schema)
        assert refused.value.pointer == pointer
        assert reason in str(refused.value)

    def test_a_nested_dialect_is_refused(self) -> None:
        schema = {"properties": {"x": {"$schema": "http://json-schema.org/draft-07/schema#"}}}
        with pytest.raises(SchemaRefused) as refused:
            check_schema_document(schema)
        assert refused.value.pointer == "/properties/x/$schema"

    def test_only_draft_2020_12_at_the_top(self) -> None:
        check_schema_document({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"})
        with pytest.raises(SchemaRefused):
            check_schema_document({"$schema": "http://json-schema.org/draft-04/schema#"})

    def test_remote_references_are_refused(self) -> None:
        with pytest.raises(SchemaRefused) as refused:
            check_schema_document({"properties": {"a": {"$ref": "https://example.com/s.json"}}})
        assert refused.value.pointer == "/properties/a/$ref"

    def test_a_refused_schema_is_one_problem_when_validating(self) -> None:
        (problem,) = schema_problems({"pattern": "(?=a)"}, "a")
        assert problem.startswith("(schema): the pattern")


class TestBounded:
    def test_unique_items_over_many_objects_is_linear(self) -> None:
        # The library compares every pair of unhashable items: 20,000 objects would be 200 million
        # comparisons. Here it is one pass; JSON equality still holds (1 == 1.0, true != 1).
        items = [{"id": index, "tags": [index % 7]} for index in range(20_000)]
        schema = {"type": "array", "uniqueItems": True}
        assert compiled_schema(schema).violations(items) == []
        assert compiled_schema(schema).violations([*items, {"tags": [3], "id": 10.0}])
        assert compiled_schema(schema).violations([True, 1]) == []

    def test_multiplying_branches_stop_at_the_budget(self) -> None:
        # Forty levels of anyOf over two references to the next level: 2**40 evaluations unbounded.
        definitions: dict[str, Any] = {
            f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
            for i in range(40)
        }
        definitions["d40"] = {"type": "string"}
        schema = {"$defs": definitions, "$ref": "#/$defs/d0"}
        check_schema_document(schema)
        with pytest.raises(ValidationTooCostly):
            compiled_schema(schema).violations(1, budget=20_000)
        (problem,) = schema_problems(schema, 1, budget=20_000)
        assert "too complex" in problem

    def test_a_schema_that_refers_to_itself_without_end(self) -> None:
        schema = {"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}
        with pytest.raises(ValidationTooCostly):
            compiled_schema(schema).violations(1)

    def test_recursion_through_the_value_is_fine(self) -> None:
        tree = {
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                }
            },
            "$ref": "#/$defs/node",
        }
        value: dict[str, Any] = {"children": []}
        for _ in range(20):
            value = {"children": [value]}
        assert compiled_schema(tree).violations(value) == []

    def test_messages_are_short(self) -> None:
        (violation,) = compiled_schema({"pattern": "^b"}).violations("a" * 100_000)
        assert len(violation.message) <= 300

    def test_compiled_once_per_content(self) -> None:
        schema = {"type": "object", "properties": {"a": {"pattern": "^x"}}}
        assert compiled_schema(schema) is compiled_schema(copy.deepcopy(schema))


class TestAcceptedSchemasAreRemembered:
    def test_a_refusal_is_never_remembered_as_an_acceptance(self) -> None:
        good = {"type": "object", "properties": {"n": {"type": "integer"}}}
        bad = {"type": "object", "properties": {"n": {"type": "no-such-type"}}}
        for _ in range(3):
            assert check_schema_document(copy.deepcopy(good)) == good
            with pytest.raises(SchemaRefused):
                check_schema_document(copy.deepcopy(bad))

    def test_json_equal_but_different_values_are_told_apart(self) -> None:
        check_schema_document({"type": "object", "maxProperties": 1})
        with pytest.raises(SchemaRefused):
            check_schema_document({"type": "object", "maxProperties": True})

    def test_the_memory_is_bounded(self) -> None:
        for index in range(json_schema.ACCEPTED_SCHEMAS_SIZE + 10):
            check_schema_document({"type": "object", "title": f"schema {index}"})
        assert len(json_schema._accepted) <= json_schema.ACCEPTED_SCHEMAS_SIZE
