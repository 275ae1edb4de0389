"""Preview and cost estimate of plans with blocks: every branch's calls, a loop's cost as items x body."""

from __future__ import annotations

from typing import Any

import pytest

from app.definitions.automation import AutomationDefinition
from app.engine.call_modes import CallPolicy
from app.engine.estimate import first_run_estimate, step_estimate
from app.engine.preview import preview_steps
from app.registry import actions, capabilities


def _flat(model: str, prompt_tokens: int, max_tokens: int) -> float:
    return (prompt_tokens + max_tokens) / 1000


def _llm(step_id: str) -> dict[str, Any]:
    return {
        "step_id": step_id,
        "action": "llm_complete",
        "config": {"model": "openai/x", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 10},
    }


def _definition(*plan: dict[str, Any]) -> AutomationDefinition:
    return AutomationDefinition.model_validate({"name": "t", "plan": list(plan)})


def _one_call() -> float:
    cost = step_estimate(_definition(_llm("one")).plan[0], _flat, ())  # type: ignore[arg-type]
    assert cost is not None
    return cost


class TestEstimate:
    def test_a_loop_costs_its_body_once_per_literal_item(self) -> None:
        loop = {"step_id": "each", "for_each": {"items": [1, 2, 3], "steps": [_llm("ask"), _llm("check")]}}
        assert first_run_estimate(_definition(loop), _flat) == pytest.approx(6 * _one_call())

    def test_a_templated_loop_costs_its_body_max_items_times(self) -> None:
        loop = {
            "step_id": "each",
            "for_each": {"items": "{{ inputs.list }}", "max_items": 7, "steps": [_llm("a")]},
        }
        assert first_run_estimate(_definition(loop), _flat) == pytest.approx(7 * _one_call())

    def test_an_if_costs_its_dearer_branch(self) -> None:
        branch = {
            "step_id": "pick",
            "if": {"condition": {"inputs.x": 1}, "then": [_llm("a")], "else": [_llm("b"), _llm("c")]},
        }
        assert first_run_estimate(_definition(branch, _llm("after")), _flat) == pytest.approx(3 * _one_call())

    def test_nested_loops_multiply(self) -> None:
        inner = {"step_id": "inner", "for_each": {"items": [1, 2], "steps": [_llm("a")]}}
        outer = {"step_id": "outer", "for_each": {"items": [1, 2, 3], "steps": [inner]}}
        assert first_run_estimate(_definition(outer), _flat) == pytest.approx(6 * _one_call())


def _http(step_id: str, url: str) -> dict[str, Any]:
    return {"step_id": step_id, "action": "http_request", "config": {"method": "POST", "url": url}}


async def _preview(
    definition: AutomationDefinition, policy: CallPolicy | None = None
) -> list[dict[str, Any]]:
    scope = {"inputs": {"amount": 5000, "ids": [1, 2]}, "trigger": {}, "run": {}}
    steps, _ = await preview_steps(definition, scope, actions, capabilities, {}, policy or CallPolicy())
    return steps


class TestPreview:
    async def test_every_branch_is_previewed_with_its_calls_modes(self) -> None:
        definition = _definition(
            {
                "step_id": "big",
                "if": {
                    "condition": {"inputs.amount": {"gt": 1000}},
                    "then": [_http("ask_finance", "https://finance.example/ask")],
                    "else": [_http("pay", "https://pay.example/pay")],
                },
            }
        )
        steps = await _preview(definition, CallPolicy(automation_modes={"http.request": "require_approval"}))
        by_id = {step["step_id"]: step for step in steps}
        assert by_id["big"]["condition"] == {"decided": True, "value": True, "branch": "then"}
        assert by_id["ask_finance"]["pointer"] == "/plan/0/if/then/0"
        assert by_id["pay"]["branches"] == [["big", "else"]]
        for step_id in ("ask_finance", "pay"):
            [call] = by_id[step_id]["calls"]
            assert (call["capability"], call["mode"]) == ("http.request", "require_approval")

    async def test_a_loop_entry_counts_its_items_and_its_body_names_the_loop(self) -> None:
        definition = _definition(
            {
                "step_id": "each",
                "for_each": {"items": "{{ inputs.ids }}", "steps": [_http("post", "https://a.example/")]},
            }
        )
        steps = await _preview(definition)
        assert steps[0]["items"]["count"] == 2
        assert steps[1]["loops"] == [{"step_id": "each", "count": 2, "max_items": 100, "concurrency": 1}]

    async def test_a_condition_on_step_outputs_waits_for_them(self) -> None:
        definition = _definition(
            {"step_id": "get", "action": "transform_data", "config": {"output": 1}, "output_as": "got"},
            {"step_id": "pick", "if": {"condition": {"got": 1}, "then": [_http("a", "https://a.example/")]}},
        )
        steps = await _preview(definition)
        assert steps[1]["condition"] == {"decided": False, "waits_for": ["got"]}


async def test_a_url_that_does_not_parse_names_no_host() -> None:
    definition = _definition(_http("post", "http://[not-a-host/x"))
    steps, hosts = await preview_steps(
        definition, {"inputs": {}, "trigger": {}, "run": {}}, actions, capabilities, {}, CallPolicy()
    )
    assert hosts == []
    assert steps[0]["calls"][0]["capability"] == "http.request"
