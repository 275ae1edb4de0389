"""Footprints and their comparison: schedules, event types, literal write targets, goal words."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.engine.overlap import WriteTarget, compare, footprint, goal_tokens, similarity

NOW = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
USES = {
    "http_request": ("http.request",),
    "slack_post": ("slack.post_message",),
    "send_email": ("email.send",),
    "transform_data": (),
}


def doc(
    *steps: dict[str, Any], triggers: list[dict[str, Any]] | None = None, goal: str | None = None
) -> dict[str, Any]:
    return {"name": "x", "goal": goal, "triggers": triggers or [], "plan": list(steps)}


def schedule(cron: str, timezone: str = "UTC") -> dict[str, Any]:
    return {"type": "schedule", "config": {"cron": cron, "timezone": timezone}}


def event(event_type: str) -> dict[str, Any]:
    return {"type": "event", "config": {"event_type": event_type}}


def kinds(first: dict[str, Any], second: dict[str, Any]) -> list[tuple[str, bool]]:
    return [(r.kind, r.strict) for r in compare(footprint(first, USES), footprint(second, USES), NOW)]


class TestSchedules:
    def test_same_instant_overlaps_and_a_different_hour_does_not(self) -> None:
        assert kinds(doc(triggers=[schedule("0 9 * * *")]), doc(triggers=[schedule("0 9 * * 1-5")])) == [
            ("schedule", False)
        ]
        assert kinds(doc(triggers=[schedule("0 9 * * *")]), doc(triggers=[schedule("0 10 * * *")])) == []

    def test_time_zones_are_compared_as_instants(self) -> None:
        berlin = doc(triggers=[schedule("0 10 * * *", "Europe/Berlin")])
        assert kinds(berlin, doc(triggers=[schedule("0 9 * * *")])) == [("schedule", False)], (
            "10:00 CET is 09:00 UTC"
        )
        assert kinds(berlin, doc(triggers=[schedule("0 10 * * *")])) == []

    def test_a_disabled_trigger_or_a_broken_cron_does_not_count(self) -> None:
        disabled = {**schedule("0 9 * * *"), "enabled": False}
        assert kinds(doc(triggers=[disabled]), doc(triggers=[schedule("0 9 * * *")])) == []
        assert kinds(doc(triggers=[schedule("not a cron")]), doc(triggers=[schedule("0 9 * * *")])) == []


class TestEvents:
    def test_equal_and_wildcard_types_meet(self) -> None:
        assert kinds(doc(triggers=[event("drive.file_added")]), doc(triggers=[event("drive.*")])) == [
            ("event", False)
        ]
        assert kinds(doc(triggers=[event("drive.*")]), doc(triggers=[event("drive.file_added")])) == [
            ("event", False)
        ]
        assert kinds(doc(triggers=[event("a.b")]), doc(triggers=[event("a.b")])) == [("event", False)]
        assert kinds(doc(triggers=[event("drive.*")]), doc(triggers=[event("mail.*")])) == []
        assert kinds(doc(triggers=[event("drives.x")]), doc(triggers=[event("drive.*")])) == []


class TestWrites:
    def test_the_same_channel_is_strict_and_another_is_not(self) -> None:
        def post(channel: str) -> dict[str, Any]:
            return {"step_id": "p", "action": "slack_post", "config": {"channel": channel, "text": "hi"}}

        assert kinds(doc(post("#eng")), doc(post("#eng"))) == [("write", True)]
        assert kinds(doc(post("#eng")), doc(post("#ops"))) == []
        assert kinds(doc(post("{{ inputs.channel }}")), doc(post("{{ inputs.channel }}"))) == [], "unknown"

    def test_http_writes_meet_by_method_scheme_host_and_path_and_reads_never(self) -> None:
        def call(method: str, url: str) -> dict[str, Any]:
            return {"step_id": "c", "action": "http_request", "config": {"method": method, "url": url}}

        def post(url: str) -> dict[str, Any]:
            return doc(call("POST", url))

        assert kinds(post("https://api.example.com/b"), post("https://api.example.com/c")) == [], (
            "two endpoints of one API: a chain, not a duplicate"
        )
        assert kinds(post("https://api.example.com/b"), post("https://API.example.com/b")) == [
            ("write", True)
        ]
        assert kinds(post("https://api.example.com/b?page=1"), post("https://api.example.com/b?x=2")) == [
            ("write", True)
        ], "the query is ignored"
        assert kinds(post("https://api.example.com/b"), post("http://api.example.com/b")) == []
        assert kinds(post("https://api.example.com:8443/b"), post("https://api.example.com/b")) == []
        assert kinds(post("https://api.example.com"), post("https://api.example.com/")) == [("write", True)]
        assert (
            kinds(
                doc(call("GET", "https://api.example.com/a")), doc(call("GET", "https://api.example.com/a"))
            )
            == []
        )
        assert (
            kinds(doc(call("POST", "https://a.example.com")), doc(call("PUT", "https://a.example.com"))) == []
        )
        assert kinds(post("{{ inputs.url }}"), post("{{ inputs.url }}")) == [], "unknown"

    def test_the_reason_names_the_path(self) -> None:
        step = {
            "step_id": "c",
            "action": "http_request",
            "config": {"method": "post", "url": "https://h/x?q"},
        }
        (reason,) = compare(footprint(doc(step), USES), footprint(doc(step), USES), NOW)
        assert reason.message == "both write with http.request to POST https://h/x"

    def test_mail_to_the_same_recipient(self) -> None:
        def mail(*to: str) -> dict[str, Any]:
            return {
                "step_id": "m",
                "action": "send_email",
                "config": {"to": list(to), "subject": "s", "text": "t"},
            }

        assert kinds(doc(mail("Ops@Example.com", "x@example.com")), doc(mail("ops@example.com"))) == [
            ("write", True)
        ]


class TestGoals:
    def test_token_set_similarity(self) -> None:
        assert goal_tokens("Post the daily sales summary to the team") == {
            "post",
            "daily",
            "sales",
            "summary",
            "team",
        }
        assert similarity({"a", "b"}, {"b", "c"}) == 1 / 3
        assert similarity(set(), {"a"}) == 0.0
        same = kinds(
            doc(goal="Post the daily sales summary to the team"), doc(goal="Daily sales summary for the team")
        )
        assert same == [("goal", False)]
        assert (
            kinds(doc(goal="Post the daily sales summary"), doc(goal="Archive old invoices every month"))
            == []
        )
        assert kinds(doc(goal="sales"), doc(goal="sales")) == [], "too few words to judge"


class TestMalformedDrafts:
    """A draft may hold any JSON; its footprint keeps what it can read and never raises."""

    def test_wrong_types_where_lists_objects_and_text_belong(self) -> None:
        broken = {
            "name": "x",
            "goal": {"": ["not", "text"]},
            "triggers": ["", {"type": "schedule", "config": ["* * * * *"]}, {"type": "event", "config": 3}],
            "plan": {"step_id": "a"},
            "execution": ["on_failure"],
        }
        seen = footprint(broken, USES)
        assert (seen.schedules, seen.event_types, seen.writes, seen.goal_tokens) == (
            (),
            (),
            frozenset(),
            frozenset(),
        )

    def test_readable_parts_still_count_beside_broken_ones(self) -> None:
        mixed = {
            "goal": 42,
            "triggers": [7, schedule("0 9 * * *")],
            "plan": [
                "step",
                {"step_id": "a", "action": "slack_post", "config": {"channel": "#ops", "text": "t"}},
            ],
            "execution": {"on_failure": "notify"},
        }
        assert kinds(mixed, doc(triggers=[schedule("0 9 * * *")])) == [("schedule", False)]
        seen = footprint(mixed, USES)
        assert seen.writes == {WriteTarget("slack.post_message", "channel #ops")}


class TestTools:
    """`call_tool` of a non-native capability: the tool is the target, literal arguments narrow it."""

    NATIVE = frozenset({"http.request", "slack.post_message", "email.send"})

    def kinds(self, first: dict[str, Any], second: dict[str, Any]) -> list[tuple[str, bool]]:
        mine, theirs = footprint(first, USES, self.NATIVE), footprint(second, USES, self.NATIVE)
        return [(r.kind, r.strict) for r in compare(mine, theirs, NOW)]

    @staticmethod
    def call(capability: str, **args: Any) -> dict[str, Any]:
        return doc(
            {"step_id": "t", "action": "call_tool", "config": {"capability": capability, "args": args}}
        )

    def test_the_same_tool_with_equal_literal_keys_is_strict_and_different_ones_are_not(self) -> None:
        assert self.kinds(
            self.call("crm.create_note", customer="42"), self.call("crm.create_note", customer="42")
        ) == [("write", True)]
        assert (
            self.kinds(
                self.call("crm.create_note", customer="42"), self.call("crm.create_note", customer="7")
            )
            == []
        )
        assert self.kinds(self.call("crm.create_note"), self.call("crm.update_note")) == []

    def test_a_templated_argument_narrows_nothing(self) -> None:
        templated = self.call("crm.create_note", customer="{{ trigger.payload.id }}", kind="call")
        assert self.kinds(templated, self.call("crm.create_note", customer="42", kind="call")) == [
            ("write", True)
        ]
        assert self.kinds(templated, self.call("crm.create_note", customer="42", kind="visit")) == []
        secret = self.call("crm.create_note", api_key={"$secret": "k"}, customer="42")
        assert self.kinds(secret, self.call("crm.create_note", api_key={"$secret": "j"}, customer="42")) == [
            ("write", True)
        ]

    def test_a_native_capability_through_call_tool_uses_its_own_rule(self) -> None:
        first = self.call("http.request", method="POST", url="https://api.example.com/b")
        assert self.kinds(
            first, self.call("http.request", method="POST", url="https://api.example.com/b?x")
        ) == [("write", True)]
        assert (
            self.kinds(first, self.call("http.request", method="POST", url="https://api.example.com/c")) == []
        )
        assert self.kinds(self.call("{{ inputs.tool }}"), self.call("{{ inputs.tool }}")) == []
