"""Rule-of-thumb flags: unusual templates, and agents a tight step would replace (no model involved)."""

from __future__ import annotations

from typing import Any

from app.nl.heuristics import heuristic_flags
from tests.support.drafts import proposal


def _codes(document: dict[str, Any]) -> list[tuple[str, str]]:
    return [(flag.code, flag.path) for flag in heuristic_flags(document)]


def _text(template: str) -> dict[str, Any]:
    step = {"step_id": "say", "action": "transform_data", "config": {"output": template}}
    return proposal(plan=[step])


class TestTemplates:
    def test_everyday_templates_are_not_flagged(self) -> None:
        assert _codes(_text("{{ trigger.body.title | default('none') | upper }}")) == []
        assert _codes(proposal()) == []

    def test_a_deep_path_is_flagged_where_it_is(self) -> None:
        assert _codes(_text("{{ steps.fetch.output.items[0].user.profile.name }}")) == [
            ("unusual_template", "/plan/0/config/output")
        ]

    def test_a_rare_filter_is_flagged(self) -> None:
        [flag] = heuristic_flags(_text("{{ inputs.when | datetimeformat('%Y') }}"))
        assert flag.code == "unusual_template"
        assert "'datetimeformat'" in flag.message

    def test_a_very_long_expression_is_flagged(self) -> None:
        long = " + ".join(f"inputs.n{i}" for i in range(30))
        assert _codes(_text("{{ " + long + " }}")) == [("unusual_template", "/plan/0/config/output")]

    def test_text_without_templates_and_odd_input_are_ignored(self) -> None:
        assert _codes(_text("a | b . c . d . e . f . g")) == []
        assert _codes(_text("{{ unclosed")) == []


class TestTightAgents:
    def _agent(self, tools: list[Any]) -> dict[str, Any]:
        document = proposal()
        document["plan"][0]["config"]["tools"] = tools
        return document

    def test_an_agent_with_one_named_tool_could_be_a_call_tool_step(self) -> None:
        assert _codes(self._agent(["crm.create_note"])) == [("agent_could_be_tight", "/plan/0")]

    def test_agents_with_choices_or_no_tools_are_not_flagged(self) -> None:
        assert _codes(self._agent([])) == []
        assert _codes(self._agent(["crm.*"])) == []
        assert _codes(self._agent(["crm.create_note", "crm.find"])) == []
        assert _codes(self._agent([{"not": "a name"}])) == []
