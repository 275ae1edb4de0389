"""The one credential detector: where a JSON value holds a credential as text, and a copy without it."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.security.credentials import REMOVED, credential_literals, scrub, without_credentials

KEY = "sk-live-4f9c2b7e1d8a6035c9e2"


def _paths(document: Any) -> list[tuple[tuple[str | int, ...], str | None]]:
    return list(credential_literals(document))


class TestFinding:
    def test_a_header_a_query_parameter_and_a_known_key_anywhere(self) -> None:
        document = {
            "plan": [
                {
                    "config": {
                        "headers": {"Authorization": "Bearer 9f8e7d6c5b4a39281706", "Accept": "text/plain"},
                        "url": "https://api.example.com/x?api_key=9f8e7d6c5b4a39281706&page=2",
                        "json": {"note": f"use {KEY}"},
                    }
                }
            ]
        }
        assert _paths(document) == [
            (("plan", 0, "config", "headers", "Authorization"), None),
            (("plan", 0, "config", "url"), "api_key"),
            (("plan", 0, "config", "json", "note"), None),
        ], "in document order"

    @pytest.mark.parametrize(
        "value",
        [
            {"headers": {"Authorization": "Bearer {{ inputs.token }}"}},
            {"headers": {"Authorization": {"$secret": "hook_token"}}},
            {"headers": {"X-Request-Id": "a1b2c3d4e5f6g7h8i9"}},
            {"prompt": "Rotate the token bucket every 9f8e7d6c5b4a39281706 seconds"},
            {"url": "https://api.example.com/x?api_key={{ inputs.key }}"},
            {"url": "http://[::1"},
            ["plain", 3, None, True],
        ],
    )
    def test_templates_references_and_ordinary_values_are_not_credentials(self, value: Any) -> None:
        assert _paths(value) == []

    def test_a_deep_document_does_not_exhaust_the_stack(self) -> None:
        deep: Any = KEY
        for _ in range(5000):
            deep = [deep]
        assert len(_paths(deep)) == 1


class TestCutting:
    def test_the_copy_holds_no_credential_and_the_input_is_untouched(self) -> None:
        document = {
            "headers": {"Authorization": f"Bearer {KEY}", "X-Api-Key": "a1b2c3d4e5f6g7h8"},
            "url": "https://api.example.com/x?api_key=9f8e7d6c5b4a39281706",
            "keep": "hello",
        }
        before = copy.deepcopy(document)
        cleaned, changed = without_credentials(document)
        assert document == before
        assert sorted(changed) == [("headers", "Authorization"), ("headers", "X-Api-Key"), ("url",)]
        assert cleaned["headers"] == {"Authorization": f"Bearer {REMOVED}", "X-Api-Key": REMOVED}
        assert "9f8e7d6c5b4a39281706" not in cleaned["url"]
        assert cleaned["url"].startswith("https://api.example.com/x?")
        assert cleaned["keep"] == "hello"
        assert _paths(cleaned) == []

    def test_a_deep_document_is_cut_without_recursion(self) -> None:
        deep: Any = {"headers": {"Authorization": f"Bearer {KEY}"}}
        for _ in range(5000):
            deep = {"next": [deep]}
        cleaned, changed = without_credentials(deep)
        assert len(changed) == 1
        assert _paths(cleaned) == []
        assert _paths(deep) != [], "the input keeps its value"

    def test_nothing_to_cut_answers_the_same_object(self) -> None:
        document = {"name": "fine"}
        assert without_credentials(document) == (document, [])

    def test_a_bare_string_is_cut_too(self) -> None:
        cleaned, changed = without_credentials(KEY)
        assert (cleaned, changed) == (REMOVED, [()])

    # Python's `re` backtracked quadratically on both (minutes at this size); RE2 runs them in linear time.
    @pytest.mark.timeout(30)
    @pytest.mark.parametrize("tail", ["token" + " " * 600_000 + "a", "eyJ" * 200_000])
    def test_hostile_text_is_cut_in_linear_time(self, tail: str) -> None:
        cleaned, changed = without_credentials({"headers": {"X-Api-Key": f"{KEY} {tail}"}})
        assert changed == [("headers", "X-Api-Key")]
        assert KEY not in cleaned["headers"]["X-Api-Key"]
        assert scrub(tail)[1] is False

    def test_scrub_reports_what_it_cut(self) -> None:
        assert scrub(f"key {KEY}") == (f"key {REMOVED}", True)
        assert scrub("nothing here") == ("nothing here", False)
