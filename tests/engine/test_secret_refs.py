"""Secret references: where validation accepts them, how the executor binds them, how values are scrubbed."""

from __future__ import annotations

import copy
from typing import Any

from app.engine.secret_refs import (
    SecretRef,
    bind_references,
    is_literal_reference,
    reference_aware_problems,
    references,
    scrub,
    substitute,
)
from app.engine.validation import Vocabulary, validate_definition

HEADERS = {
    "type": "object",
    "properties": {"headers": {"type": "object", "additionalProperties": {"type": "string"}}},
}


def http_definition(config: dict[str, Any]) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": "refs",
        "plan": [
            {"step_id": "call", "action": "http_request", "config": {"url": "https://example.com", **config}}
        ],
    }


def codes(document: dict[str, Any], vocabulary: Vocabulary | None = None) -> list[tuple[str, str]]:
    return [(p.path, p.code) for p in validate_definition(document, vocabulary) if p.severity == "error"]


class TestSaveTime:
    def test_a_reference_where_a_string_is_expected_is_valid(self) -> None:
        assert codes(http_definition({"headers": {"Authorization": {"$secret": "stripe_key"}}})) == []

    def test_a_reference_where_a_number_is_expected_is_not(self) -> None:
        assert codes(http_definition({"timeout_seconds": {"$secret": "stripe_key"}})) == [
            ("/plan/0/config/timeout_seconds", "secret_not_allowed_here"),
            ("/plan/0/config/timeout_seconds", "invalid_config"),
        ]

    def test_malformed_references_are_located(self) -> None:
        document = http_definition(
            {
                "headers": {
                    "A": {"$secret": "Bad-Name"},
                    "B": {"$secret": "ok", "extra": 1},
                    "C": {"$secret": 3},
                }
            }
        )
        found = codes(document)
        for header in ("A", "B", "C"):
            assert (f"/plan/0/config/headers/{header}", "invalid_secret_reference") in found

    def test_other_objects_where_strings_belong_are_still_invalid(self) -> None:
        assert codes(http_definition({"headers": {"A": {"secret": "x"}}})) == [
            ("/plan/0/config/headers/A", "invalid_config")
        ]

    def test_references_must_name_a_secret_of_the_space_when_its_secrets_are_known(self) -> None:
        document = http_definition({"headers": {"A": {"$secret": "known"}, "B": {"$secret": "gone"}}})
        assert codes(document, Vocabulary(secret_names=frozenset({"known"}))) == [
            ("/plan/0/config/headers/B", "unknown_secret")
        ]
        assert codes(document, Vocabulary(secret_names=frozenset({"known", "gone"}))) == []
        assert codes(document) == []  # secrets unknown (no space at hand): not checked


class TestRunTime:
    def test_literal_references_are_bound_and_everything_else_is_left_alone(self) -> None:
        written = {"headers": {"A": {"$secret": "k"}, "B": "{{ x }}"}, "list": [{"$secret": "k2"}, 1]}
        rendered = {
            "headers": {"A": {"$secret": "k"}, "B": {"$secret": "stolen"}},
            "list": [{"$secret": "k2"}, 1],
        }
        bound = bind_references(written, copy.deepcopy(rendered))
        assert isinstance(bound["headers"]["A"], SecretRef)
        assert not isinstance(bound["headers"]["B"], SecretRef)
        assert isinstance(bound["list"][0], SecretRef)
        assert [ref.name for ref in references(bound)] == ["k", "k2"]
        assert bound == rendered  # binding changes types, never values

    def test_run_time_validation_accepts_bound_references_only(self) -> None:
        assert reference_aware_problems(HEADERS, {"headers": {"A": SecretRef("k")}}) == []
        assert reference_aware_problems(HEADERS, {"headers": {"A": {"$secret": "k"}}}) != []
        assert (
            reference_aware_problems(
                HEADERS, {"headers": {"A": {"$secret": "k"}}}, is_reference=is_literal_reference
            )
            == []
        )

    def test_substitute_replaces_references_and_keeps_the_original(self) -> None:
        args = {"headers": {"A": SecretRef("k")}, "n": [SecretRef("k")]}
        assert substitute(args, {"k": "value"}) == {"headers": {"A": "value"}, "n": ["value"]}
        assert isinstance(args["headers"]["A"], SecretRef)

    def test_scrub_hides_values_in_keys_and_leaves_longest_first(self) -> None:
        value = {"echo": "token=abc123456 and abc123456789", "abc123456": [1, "abc123456"]}
        assert scrub(value, ["abc123456", "abc123456789"]) == {
            "echo": "token=[REDACTED] and [REDACTED]",
            "[REDACTED]": [1, "[REDACTED]"],
        }
        assert scrub(value, []) is value


def problems(document: dict[str, Any], vocabulary: Vocabulary) -> list[tuple[str, str, str]]:
    return [(p.path, p.code, p.severity) for p in validate_definition(document, vocabulary)]


def step_definition(action: str, config: dict[str, Any]) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": "refs",
        "plan": [{"step_id": "s", "action": action, "config": config}],
    }


class TestSecretFields:
    KNOWN = Vocabulary(secret_names=frozenset({"api"}), secret_hosts={"api": ()})

    def test_internal_actions_take_no_secret(self) -> None:
        ref = {"$secret": "api"}
        for action, config, where in (
            ("kv_set", {"key": "k", "value": ref}, "value"),
            ("kv_set", {"key": "k", "value": {"deep": [ref]}}, "value/deep/0"),
            ("notification", {"title": "t", "body": ref}, "body"),
            ("transform_data", {"output": ref}, "output"),
            ("llm_complete", {"prompt": ref}, "prompt"),
        ):
            found = problems(step_definition(action, config), self.KNOWN)
            assert (f"/plan/0/config/{where}", "secret_not_allowed_here", "error") in found, action

    def test_call_tool_is_judged_by_the_capability_it_names(self) -> None:
        ref = {"$secret": "api"}
        leak = step_definition("call_tool", {"capability": "kv.set", "args": {"key": "k", "value": ref}})
        assert ("/plan/0/config/args/value", "secret_not_allowed_here", "error") in problems(leak, self.KNOWN)
        http = {"url": "https://api.example.com/x", "headers": {"X-Key": ref}}
        fine = step_definition("call_tool", {"capability": "http.request", "args": http})
        assert [p for p in problems(fine, self.KNOWN) if p[2] == "error"] == []
        chosen = step_definition("call_tool", {"capability": "{{ inputs.c }}", "args": {"x": ref}})
        assert ("/plan/0/config/args/x", "secret_not_allowed_here", "error") in problems(chosen, self.KNOWN)

    def test_an_unbound_secret_warns_and_names_the_host_to_bind(self) -> None:
        document = http_definition({"headers": {"X-Key": {"$secret": "api"}}})
        found = validate_definition(document, self.KNOWN)
        [warning] = [p for p in found if p.code == "secret_unbound"]
        assert warning.severity == "warning"
        assert warning.path == "/plan/0/config/headers/X-Key"
        assert "any public host" in warning.message
        assert "example.com" in warning.message

    def test_a_bound_secret_to_another_literal_host_is_an_error_and_a_template_is_left_to_run_time(
        self,
    ) -> None:
        bound = Vocabulary(secret_names=frozenset({"api"}), secret_hosts={"api": ("*.example.org",)})
        ref = {"headers": {"X-Key": {"$secret": "api"}}}
        assert problems(http_definition(ref), bound) == [
            ("/plan/0/config/headers/X-Key", "secret_host_refused", "error")
        ]
        templated = http_definition(ref)
        templated["plan"][0]["config"]["url"] = "{{ inputs.url }}"
        assert [p for p in problems(templated, bound) if p[1].startswith("secret")] == []
        good = http_definition(ref)
        good["plan"][0]["config"]["url"] = "https://eu.example.org/x"
        assert problems(good, bound) == []
