"""Spending caps in effect, their save-time maximums, agent HTTP grant hosts, and the first-run estimate."""

from __future__ import annotations

from typing import Any

import pytest

from app.definitions.automation import AutomationDefinition, ExecutionPolicy
from app.engine.caps import OperatorCaps, effective_caps
from app.engine.estimate import first_run_estimate, step_estimate
from app.engine.grants import granted
from app.engine.validation import Vocabulary, validate_definition
from app.engine.validation.spending import http_grant_problems
from app.registry import capabilities as native_capabilities
from app.registry.builtin_agent import SYSTEM_PROMPT

OPERATOR = OperatorCaps(
    default_daily_cost_usd=1.0, max_daily_cost_usd=5.0, default_run_tokens=200_000, max_run_tokens=300_000
)


def _agent(**config: Any) -> dict[str, Any]:
    return {
        "step_id": "think",
        "action": "agent_task",
        "config": {"prompt": "Do it.", "model": "openai/x", **config},
    }


def _document(
    execution: dict[str, Any] | None = None, plan: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": "spending",
        "plan": plan or [_agent(tools=["http.request"])],
        "execution": execution or {},
    }


def _codes(document: dict[str, Any], vocabulary: Vocabulary | None = None) -> list[tuple[str, str, str]]:
    # An agent without output_schema is warned of that too; it is beside the point here.
    found = validate_definition(document, vocabulary)
    return [(p.path, p.code, p.severity) for p in found if p.code != "missing_output_schema"]


class TestEffectiveCaps:
    def test_unset_caps_are_the_operator_defaults(self) -> None:
        caps = effective_caps(ExecutionPolicy(), OPERATOR).as_dict()
        assert caps == {
            "daily_cost_usd": {"value": 1.0, "source": "operator_default", "maximum": 5.0},
            "run_tokens": {"value": 200_000, "source": "operator_default", "maximum": 300_000},
        }

    def test_the_automation_overrides_each_cap(self) -> None:
        caps = effective_caps(ExecutionPolicy(cost_cap_daily_usd=0.25, max_llm_tokens=5000), OPERATOR)
        assert (caps.daily_cost_usd.value, caps.daily_cost_usd.source) == (0.25, "automation")
        assert (caps.run_tokens.value, caps.run_tokens.source) == (5000, "automation")

    def test_a_zero_daily_cap_is_the_automations_own(self) -> None:
        caps = effective_caps(ExecutionPolicy(cost_cap_daily_usd=0), OPERATOR)
        assert (caps.daily_cost_usd.value, caps.daily_cost_usd.source) == (0, "automation")


class TestCapMaximums:
    vocabulary = Vocabulary(caps=OPERATOR)

    def test_caps_up_to_the_maximum_are_accepted(self) -> None:
        execution = {"cost_cap_daily_usd": 5.0, "max_llm_tokens": 300_000}
        document = _document(
            execution, [{"step_id": "a", "action": "transform_data", "config": {"output": 1}}]
        )
        assert _codes(document, self.vocabulary) == []

    def test_caps_above_the_maximum_are_refused_with_a_pointer(self) -> None:
        execution = {"cost_cap_daily_usd": 5.01, "max_llm_tokens": 300_001}
        document = _document(
            execution, [{"step_id": "a", "action": "transform_data", "config": {"output": 1}}]
        )
        assert _codes(document, self.vocabulary) == [
            ("/execution/cost_cap_daily_usd", "cap_above_maximum", "error"),
            ("/execution/max_llm_tokens", "cap_above_maximum", "error"),
        ]

    def test_without_operator_caps_no_maximum_is_checked(self) -> None:
        execution = {"cost_cap_daily_usd": 500}
        document = _document(
            execution, [{"step_id": "a", "action": "transform_data", "config": {"output": 1}}]
        )
        assert _codes(document) == []


class TestAgentHttpGrants:
    @pytest.mark.parametrize("capability", ["http.request", "http.*", "*"])
    def test_a_grant_reaching_http_request_without_hosts_is_refused(self, capability: str) -> None:
        document = _document({"tool_grants": [{"capability": capability}]})
        assert _codes(document) == [("/execution/tool_grants/0", "grant_hosts_required", "error")]

    def test_listed_hosts_pass(self) -> None:
        document = _document({"tool_grants": [{"capability": "http.request", "hosts": ["api.example.com"]}]})
        assert _codes(document) == []

    def test_any_host_said_out_loud_is_a_warning(self) -> None:
        document = _document({"tool_grants": [{"capability": "http.request", "hosts": ["*"]}]})
        assert _codes(document) == [("/execution/tool_grants/0/hosts", "grant_any_host", "warning")]

    def test_grants_of_other_capabilities_need_no_hosts(self) -> None:
        document = _document({"tool_grants": [{"capability": "notify.send"}]})
        assert _codes(document) == []

    def test_without_an_agent_step_hosts_stay_optional(self) -> None:
        plan = [{"step_id": "get", "action": "http_request", "config": {"url": "https://example.com/"}}]
        document = _document({"tool_grants": [{"capability": "http.request"}]}, plan)
        assert _codes(document) == []

    def test_an_agent_in_on_failure_counts(self) -> None:
        plan = [{"step_id": "a", "action": "transform_data", "config": {"output": 1}}]
        document = _document(
            {"tool_grants": [{"capability": "http.request"}], "on_failure": [_agent()]}, plan
        )
        assert ("/execution/tool_grants/0", "grant_hosts_required", "error") in _codes(document)

    def test_a_stored_grant_without_hosts_loads_as_any_host_with_the_warning(self) -> None:
        document = _document({"tool_grants": [{"capability": "http.request"}]})
        AutomationDefinition.model_validate(document)  # still a valid definition
        problems = http_grant_problems(document, stored=True)
        assert [(p.path, p.code, p.severity) for p in problems] == [
            ("/execution/tool_grants/0/hosts", "grant_any_host", "warning")
        ]
        assert granted([{"capability": "http.request"}], "http.request", {"url": "https://any.example/"})

    def test_a_bare_star_is_the_only_wildcard_host(self) -> None:
        document = _document({"tool_grants": [{"capability": "http.request", "hosts": ["*example.com"]}]})
        assert [code for _, code, _ in _codes(document)] == ["schema"]


class TestAnyHostGrant:
    def test_star_lets_every_host_through(self) -> None:
        grants = [{"capability": "http.request", "hosts": ["*"]}]
        assert granted(grants, "http.request", {"url": "https://anything.example.net/x"})

    def test_star_on_a_broad_pattern_restricts_nothing(self) -> None:
        grants = [{"capability": "*", "hosts": ["*"]}]
        assert granted(grants, "notify.send", {"title": "hi"})

    def test_listed_hosts_still_restrict(self) -> None:
        grants = [{"capability": "http.request", "hosts": ["api.example.com"]}]
        assert not granted(grants, "http.request", {"url": "https://evil.example.net/"})


def _flat(model: str, prompt_tokens: int, max_tokens: int) -> float:
    """One dollar per thousand tokens, in and out alike."""
    return (prompt_tokens + max_tokens) / 1000


class TestFirstRunEstimate:
    def _step(self, **config: Any) -> Any:
        return AutomationDefinition.model_validate(_document(plan=[_agent(**config)])).plan[0]

    def test_each_turn_resends_the_growing_context(self) -> None:
        calls: list[tuple[int, int]] = []

        def pricer(model: str, prompt_tokens: int, max_tokens: int) -> float:
            calls.append((prompt_tokens, max_tokens))
            return 0.0

        step = self._step(prompt="x" * 400, max_iterations=3, max_tokens=100)
        step_estimate(step, pricer, ())
        prompt = (len(SYSTEM_PROMPT) + 400 + 3) // 4
        assert calls == [(prompt, 100), (prompt + 100, 100), (prompt + 200, 100)]

    def test_a_long_prompt_and_many_turns_cost_more(self) -> None:
        small = step_estimate(self._step(max_iterations=1, max_tokens=100), _flat, ())
        large = step_estimate(self._step(prompt="x" * 40_000, max_iterations=20, max_tokens=100), _flat, ())
        assert small is not None
        assert large is not None
        assert large > 100 * small

    def test_tool_schemas_are_part_of_the_prompt(self) -> None:
        bare = step_estimate(self._step(max_iterations=1), _flat, native_capabilities)
        tooled = step_estimate(self._step(max_iterations=1, tools=["http.*"]), _flat, native_capabilities)
        assert bare is not None
        assert tooled is not None
        assert tooled > bare

    def test_a_rendered_prompt_is_measured_as_rendered(self) -> None:
        step = self._step(prompt="{{ inputs.text }}", max_iterations=1, max_tokens=1)
        template = step_estimate(step, _flat, ())
        rendered = step_estimate(step, _flat, (), {**step.config, "prompt": "y" * 4000})
        assert template is not None
        assert rendered is not None
        assert rendered > template

    def test_an_unpriced_model_or_a_templated_one_has_no_estimate(self) -> None:
        definition = AutomationDefinition.model_validate(_document(plan=[_agent(model="{{ inputs.m }}")]))
        assert first_run_estimate(definition, _flat) is None
        plain = AutomationDefinition.model_validate(_document())
        assert first_run_estimate(plain, lambda model, prompt, output: None) is None
        assert first_run_estimate(plain, None) is None
