"""The deterministic pieces on their own: credential detection, references, targets, answers, schedules."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.nl.checks import proposal_problems
from app.nl.context import SpaceNames
from app.nl.flags import runs_per_month
from app.nl.generator import parse_answer
from app.security.credentials import looks_like_credential, scrub
from app.security.egress import EgressAllowList

NOTHING_OPEN = EgressAllowList()


def _http(url: str = "https://api.example.com/x", **config: Any) -> dict[str, Any]:
    return {
        "name": "t",
        "plan": [{"step_id": "call", "action": "http_request", "config": {"url": url, **config}}],
    }


def _codes(document: dict[str, Any], names: SpaceNames | None = None) -> list[tuple[str, str]]:
    return [(p.code, p.path) for p in proposal_problems(document, names or SpaceNames(), NOTHING_OPEN)]


class TestCredentials:
    @pytest.mark.parametrize(
        ("name", "value"),
        [
            ("Authorization", "Bearer 9f8e7d6c5b4a39281706"),
            ("X-Api-Key", "a1b2c3d4e5f6g7h8"),
            ("Content-Type", "sk-abcdefghijklmnop1234"),
            (None, "ghp_abcdefghijklmnopqrstuvwxyz0123"),
            (None, "AKIAABCDEFGHIJKLMNOP"),
            (None, "xoxb-1234567890-abcdefghij"),
        ],
    )
    def test_credentials_are_recognised(self, name: str | None, value: str) -> None:
        assert looks_like_credential(name, value)

    @pytest.mark.parametrize(
        ("name", "value"),
        [
            ("Authorization", "Bearer {{ inputs.token }}"),
            ("Content-Type", "application/json"),
            ("X-Api-Key", "short1"),
            ("X-Request-Id", "a1b2c3d4e5f6g7h8i9"),
            ("Authorization", "please see the docs"),
        ],
    )
    def test_ordinary_values_are_not_credentials(self, name: str, value: str) -> None:
        assert not looks_like_credential(name, value)

    def test_scrub_cuts_credentials_and_keeps_prose(self) -> None:
        text, found = scrub(
            "Use the token bucket pattern; api_key=q1w2e3r4t5y6u7i8 and sk-live-zzzzzzzzzzzzzzzz1"
        )
        assert found
        assert "q1w2e3r4t5y6u7i8" not in text
        assert "sk-live-zzzz" not in text
        assert "token bucket pattern" in text
        assert scrub("Every weekday at 9, post to #eng") == ("Every weekday at 9, post to #eng", False)

    def test_a_literal_credential_in_a_header_or_query_is_an_error(self) -> None:
        headers = _http(headers={"Authorization": "Bearer 9f8e7d6c5b4a39281706"})
        assert _codes(headers) == [("literal_secret", "/plan/0/config/headers/Authorization")]
        query = _http("https://api.example.com/x?api_key=9f8e7d6c5b4a39281706")
        assert _codes(query) == [("literal_secret", "/plan/0/config/url")]


class TestReferences:
    def test_secret_references_must_name_a_secret_of_this_space(self) -> None:
        document = _http(headers={"Authorization": {"$secret": "crm_token"}})
        assert _codes(document, SpaceNames(secrets=("crm_token",))) == []
        assert _codes(document, SpaceNames(secrets=("other",))) == [
            ("unknown_secret", "/plan/0/config/headers/Authorization/$secret")
        ]
        malformed = _http(headers={"Authorization": {"$secret": "crm_token", "extra": 1}})
        assert _codes(malformed, SpaceNames(secrets=("crm_token",))) == [
            ("invalid_secret_reference", "/plan/0/config/headers/Authorization")
        ]


class TestTargets:
    @pytest.mark.parametrize(
        "url",
        [
            "http://169.254.169.254/latest/meta-data",
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://[fd00:ec2::254]/",
            "http://127.0.0.1:8000/admin",
            "http://localhost/x",
            "file:///etc/passwd",
            "http://user:pw@example.com/",
        ],
    )
    def test_unsafe_literal_targets_are_errors(self, url: str) -> None:
        assert _codes(_http(url)) == [("unsafe_url", "/plan/0/config/url")]

    @pytest.mark.parametrize(
        "url", ["https://api.example.com/v1/items", "https://{{ inputs.host }}/x", "{{ inputs.url }}"]
    )
    def test_public_or_templated_targets_pass(self, url: str) -> None:
        assert _codes(_http(url)) == []

    def test_the_allow_list_opens_private_targets(self) -> None:
        opened = EgressAllowList.parse("127.0.0.1/32")
        assert proposal_problems(_http("http://127.0.0.1:9000/hook"), SpaceNames(), opened) == []


class TestAnswers:
    def test_fenced_and_bare_definitions_are_read(self) -> None:
        fenced = "```json\n" + json.dumps({"definition": {"name": "x"}, "clarifications": []}) + "\n```"
        assert parse_answer(fenced).definition == {"name": "x"}
        bare = parse_answer(json.dumps({"name": "y", "plan": []}))
        assert bare.definition == {"name": "y", "plan": []}

    @pytest.mark.parametrize(
        ("content", "code"),
        [
            (None, "empty_answer"),
            ("[1]", "not_json"),
            ("{" * 100_000, "not_json"),
            (json.dumps({"definition": "x"}), "invalid_answer"),
            (json.dumps({"definition": None, "clarifications": []}), "invalid_answer"),
            ("x" * 300_000, "answer_too_large"),
        ],
    )
    def test_unusable_answers_say_why(self, content: str | None, code: str) -> None:
        assert [p.code for p in parse_answer(content).problems] == [code]

    def test_questions_get_ids_and_bad_ones_are_dropped(self) -> None:
        answer = parse_answer(
            json.dumps(
                {"definition": None, "clarifications": [{"question": "Which?"}, {"question": ""}, "Why?"]}
            )
        )
        assert [(c.id, c.question) for c in answer.clarifications] == [("q1", "Which?"), ("q2", "Why?")]


class TestRunsPerMonth:
    @pytest.mark.parametrize(
        ("triggers", "expected"),
        [
            ([{"type": "schedule", "config": {"cron": "0 9 * * *", "timezone": "Europe/Berlin"}}], 30),
            ([{"type": "schedule", "config": {"cron": "* * * * *"}}], 43200),
            (
                [
                    {"type": "schedule", "config": {"cron": "0 9 * * *"}},
                    {"type": "schedule", "config": {"cron": "0 18 * * *"}},
                ],
                60,
            ),
            ([{"type": "webhook", "config": {}}], None),
            ([], None),
        ],
    )
    def test_fires_in_thirty_days(self, triggers: list[dict[str, Any]], expected: int | None) -> None:
        assert runs_per_month({"triggers": triggers}) == expected
