"""Mode rules over a call's arguments: matching, order across levels, and save-time problems."""

from __future__ import annotations

from typing import Any

from app.engine.call_modes import CallPolicy, call_mode
from app.engine.mode_rules import RULES_KEY, RuleMatch, match_rule, rule_problems
from app.engine.permissions import match_mode, resolve_mode
from tests.engine.test_permissions import cap

DELETE_DENIED: dict[str, Any] = {
    "capability": "http.request",
    "when": {"method": {"in": ["DELETE"]}},
    "mode": "deny",
}
BIG_REFUND: dict[str, Any] = {
    "capability": "payments.*",
    "when": {"amount": {"gt": 1000}},
    "mode": "require_approval",
    "approvals": 2,
}


class TestMatching:
    def test_the_condition_reads_the_arguments(self) -> None:
        rules = [DELETE_DENIED]
        assert match_rule(rules, "space", "http.request", {"method": "DELETE"}) == RuleMatch(
            "space", 0, "deny"
        )
        assert match_rule(rules, "space", "http.request", {"method": "GET"}) is None
        assert match_rule(rules, "space", "crm.note", {"method": "DELETE"}) is None

    def test_first_match_wins_and_patterns_name_capabilities(self) -> None:
        rules = [BIG_REFUND, {"capability": "payments.refund", "mode": "allow"}]
        assert match_rule(rules, "automation", "payments.refund", {"amount": 5000}) == RuleMatch(
            "automation", 0, "require_approval", 2
        )
        assert match_rule(rules, "automation", "payments.refund", {"amount": 10}) == RuleMatch(
            "automation", 1, "allow"
        )

    def test_unknown_arguments_pass_over_conditional_rules_only(self) -> None:
        rules = [DELETE_DENIED, {"capability": "http.request", "mode": "require_approval"}]
        assert match_rule(rules, "space", "http.request", None) == RuleMatch("space", 1, "require_approval")


class TestCascade:
    def test_automation_rules_then_its_map_then_space_rules_then_its_map(self) -> None:
        http = cap("http.request", risk="write")
        automation = {"http.request": "allow", RULES_KEY: [DELETE_DENIED]}
        space = {"http.request": "deny", RULES_KEY: [{"capability": "http.*", "mode": "require_approval"}]}
        deleting = resolve_mode(
            http, "agent", automation_modes=automation, space_modes=space, args={"method": "DELETE"}
        )
        assert (deleting.mode, deleting.source, deleting.rule) == (
            "deny",
            "automation_rule",
            RuleMatch("automation", 0, "deny"),
        )
        posting = resolve_mode(
            http, "agent", automation_modes=automation, space_modes=space, args={"method": "POST"}
        )
        assert (posting.mode, posting.source, posting.rule) == ("allow", "automation_override", None)
        from_space = resolve_mode(http, "agent", space_modes=space, args={"method": "POST"})
        assert (from_space.source, from_space.rule) == (
            "space_rule",
            RuleMatch("space", 0, "require_approval"),
        )

    def test_the_rules_key_is_never_a_mode_entry(self) -> None:
        assert match_mode({RULES_KEY: [DELETE_DENIED]}, RULES_KEY) is None
        assert match_mode({RULES_KEY: [DELETE_DENIED], "*": "deny"}, "x.y") == ("*", "deny")

    def test_a_drifted_allow_keeps_naming_its_rule(self) -> None:
        decision = resolve_mode(
            cap("crm.note", drifted=True),
            "definition",
            automation_modes={RULES_KEY: [{"capability": "crm.note", "mode": "allow"}]},
            args={},
        )
        assert (decision.mode, decision.source, decision.rule) == (
            "require_approval",
            "drift_guard",
            RuleMatch("automation", 0, "allow"),
        )
        assert decision.approvals == 1

    def test_a_preview_names_the_rule_and_says_when_the_arguments_decide(self) -> None:
        policy = CallPolicy(automation_modes={RULES_KEY: [BIG_REFUND]})
        known = call_mode(cap("payments.refund", risk="write"), "definition", {"amount": 2000}, policy)
        assert known["mode_rule"] == {"level": "automation", "index": 0}
        assert known["required_approvals"] == 2
        unknown = call_mode(cap("payments.refund", risk="write"), "agent", None, policy)
        assert unknown["depends_on_arguments"] is True
        assert "mode_rule" not in unknown


class TestProblems:
    def test_a_good_list_has_none(self) -> None:
        assert rule_problems([DELETE_DENIED, BIG_REFUND, {"capability": "*", "mode": "allow"}]) == []

    def test_each_problem_has_its_pointer(self) -> None:
        problems = dict(
            rule_problems(
                [
                    {"capability": "Bad Id", "mode": "maybe"},
                    {"capability": "x.y", "mode": "deny", "approvals": 2},
                    {"capability": "x.y", "mode": "require_approval", "approvals": True},
                    {"capability": "x.y", "mode": "deny", "when": {"n": {"gtt": 1}}},
                    {"capability": "x.y", "mode": "deny", "when": ["not", "a", "document"], "extra": 1},
                    7,
                ]
            )
        )
        assert set(problems) == {
            "/0/capability",
            "/0/mode",
            "/1/approvals",
            "/2/approvals",
            "/3/when/n/gtt",
            "/4/when",
            "/4/extra",
            "/5",
        }, problems

    def test_not_a_list_or_too_many(self) -> None:
        assert rule_problems({"capability": "x"}) == [("", "must be an array of rules")]
        assert rule_problems([{"capability": "x", "mode": "deny"}] * 101) == [("", "at most 100 rules")]
