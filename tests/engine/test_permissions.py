"""The permission cascade and tool grants as pure functions: what the pipeline enforces, a preview shows."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.grants import granted
from app.engine.permissions import ModeDecision, match_mode, mode_problems, resolve_mode
from app.registry import Capability

ANY: dict[str, Any] = {"type": "object"}


async def _noop(ctx: Any, args: dict[str, Any]) -> Any:
    return None


def cap(capability_id: str = "crm.create_note", **changes: Any) -> Capability:
    return Capability(
        id=capability_id,
        description="A test capability.",
        input_schema=ANY,
        output_schema=ANY,
        handler=_noop,
        **changes,
    )


class TestInference:
    def test_a_saved_step_is_allowed_whatever_its_risk(self) -> None:
        assert resolve_mode(cap(risk="write"), "definition") == ModeDecision("allow", "inferred_default")

    def test_an_agent_may_read_but_needs_approval_to_write(self) -> None:
        assert resolve_mode(cap(risk="read"), "agent").mode == "allow"
        assert resolve_mode(cap(risk="write"), "agent") == ModeDecision(
            "require_approval", "inferred_default"
        )

    def test_an_internal_write_is_inferred_like_a_read(self) -> None:
        internal = cap("kv.set", risk="write", internal=True)
        assert resolve_mode(internal, "agent") == ModeDecision("allow", "inferred_default")
        assert resolve_mode(internal, "definition", write_policy="always_draft").mode == "allow"
        assert resolve_mode(internal, "agent", space_modes={"kv.*": "deny"}).mode == "deny"

    def test_always_draft_turns_an_inferred_write_allow_into_approval(self) -> None:
        decision = resolve_mode(cap(risk="write"), "definition", write_policy="always_draft")
        assert decision == ModeDecision("require_approval", "write_policy")
        # Reads are untouched, and so is an explicit override.
        assert resolve_mode(cap(risk="read"), "definition", write_policy="always_draft").mode == "allow"
        explicit = resolve_mode(
            cap(risk="write"), "definition", automation_modes={"crm.*": "allow"}, write_policy="always_draft"
        )
        assert explicit == ModeDecision("allow", "automation_override", "crm.*")


class TestLevels:
    def test_the_automation_override_beats_the_space_default(self) -> None:
        decision = resolve_mode(
            cap(),
            "definition",
            automation_modes={"crm.create_note": "deny"},
            space_modes={"crm.create_note": "allow"},
        )
        assert decision == ModeDecision("deny", "automation_override", "crm.create_note")

    def test_the_space_default_applies_when_the_automation_says_nothing(self) -> None:
        decision = resolve_mode(
            cap(), "agent", automation_modes={"http.*": "deny"}, space_modes={"crm.*": "allow"}
        )
        assert decision == ModeDecision("allow", "space_default", "crm.*")

    def test_exact_beats_pattern_and_longer_pattern_beats_shorter(self) -> None:
        modes = {"*": "deny", "crm.*": "require_approval", "crm.create_*": "allow", "crm.create_note": "deny"}
        assert match_mode(modes, "crm.create_note") == ("crm.create_note", "deny")
        assert match_mode(modes, "crm.create_task") == ("crm.create_*", "allow")
        assert match_mode(modes, "crm.delete") == ("crm.*", "require_approval")
        assert match_mode(modes, "http.request") == ("*", "deny")
        assert match_mode({}, "http.request") is None

    def test_the_answer_does_not_depend_on_the_order_of_keys(self) -> None:
        first = {"crm.?reate_note": "deny", "crm.c*eate_note": "allow"}
        second = dict(reversed(list(first.items())))
        assert match_mode(first, "crm.create_note") == match_mode(second, "crm.create_note")


class TestDriftGuard:
    def test_a_drifted_allow_needs_approval(self) -> None:
        decision = resolve_mode(cap(drifted=True, risk="read"), "agent")
        assert decision.mode == "require_approval"
        assert decision.source == "drift_guard"

    def test_drift_never_relaxes_deny_or_approval(self) -> None:
        denied = resolve_mode(cap(drifted=True), "definition", space_modes={"crm.*": "deny"})
        assert denied == ModeDecision("deny", "space_default", "crm.*")
        waiting = resolve_mode(cap(drifted=True), "agent")
        assert waiting == ModeDecision("require_approval", "inferred_default")


class TestModeProblems:
    @pytest.mark.parametrize(
        ("modes", "bad_key"),
        [
            ({"CRM.Create": "allow"}, "CRM.Create"),
            ({"crm.create": "sometimes"}, "crm.create"),
            ({"crm/../x": "allow"}, "crm/../x"),
        ],
    )
    def test_bad_entries_are_named(self, modes: dict[str, str], bad_key: str) -> None:
        assert [key for key, _ in mode_problems(modes)] == [bad_key]

    def test_good_entries_pass(self) -> None:
        assert mode_problems({"crm.*": "allow", "http.request": "require_approval", "*": "deny"}) == []


class TestGrants:
    def test_no_list_grants_everything_and_an_empty_list_nothing(self) -> None:
        assert granted(None, "crm.update", {})
        assert not granted([], "crm.update", {})

    def test_params_are_a_deep_equal_subset_of_the_call(self) -> None:
        grants = [{"capability": "crm.update", "params": {"board_id": "b-1", "filter": {"tags": ["a"]}}}]
        call = {"board_id": "b-1", "filter": {"tags": ["a"]}, "extra": 1}
        assert granted(grants, "crm.update", call)
        assert not granted(grants, "crm.update", {**call, "board_id": "b-2"})
        assert not granted(grants, "crm.update", {"board_id": "b-1"}), "a granted key may not be left out"
        assert not granted(grants, "crm.update", {**call, "filter": {"tags": ["a", "b"]}})
        assert not granted(grants, "crm.delete", call)

    def test_values_compare_with_their_types(self) -> None:
        grants = [{"capability": "crm.update", "params": {"limit": 1}}]
        assert not granted(grants, "crm.update", {"limit": True})
        assert not granted(grants, "crm.update", {"limit": "1"})

    def test_patterns_name_capabilities(self) -> None:
        assert granted([{"capability": "crm.*"}], "crm.update", {})
        assert not granted([{"capability": "crm.*"}], "http.request", {})

    def test_hosts_restrict_http_request(self) -> None:
        grants = [{"capability": "http.request", "hosts": ["api.stripe.com", "*.example.com"]}]
        assert granted(grants, "http.request", {"url": "https://api.stripe.com/v1/charges"})
        assert granted(grants, "http.request", {"url": "https://eu.api.example.com/x"})
        assert not granted(grants, "http.request", {"url": "https://example.com/x"}), "*. means subdomains"
        assert not granted(grants, "http.request", {"url": "https://api.stripe.com.evil.io/"})
        assert not granted(grants, "http.request", {"url": "https://evil.io/?next=api.stripe.com"})
        assert not granted(grants, "http.request", {"url": "not a url"})
        assert not granted(grants, "http.request", {})
