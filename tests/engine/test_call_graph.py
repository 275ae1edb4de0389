"""Cycles through call_automation steps, found at any depth of if / for_each blocks."""

from __future__ import annotations

from typing import Any

from app.engine.call_graph import call_graph_problems, calls


def _call(step_id: str, target: str) -> dict[str, Any]:
    return {"step_id": step_id, "action": "call_automation", "config": {"automation": target}}


def _doc(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"schema_version": "1.0", "name": "Calls", "plan": list(steps)}


def _noop(step_id: str) -> dict[str, Any]:
    return {"step_id": step_id, "action": "transform_data", "config": {"output": 1}}


def test_a_call_to_itself_is_a_cycle() -> None:
    [problem] = call_graph_problems("a", _doc(_noop("x"), _call("me", "a")), {})
    assert (problem.path, problem.code) == ("/plan/1/config/automation", "automation_cycle")
    assert "a → a" in problem.message


def test_a_cycle_through_others_names_the_chain() -> None:
    others = {"b": _doc(_call("to_c", "c")), "c": _doc(_call("back", "a"))}
    [problem] = call_graph_problems("a", _doc(_call("to_b", "b")), others)
    assert problem.message.endswith("a → b → c → a")


def test_a_call_inside_blocks_is_found_with_its_pointer() -> None:
    loop = {
        "step_id": "each",
        "for_each": {"items": "{{ inputs.items }}", "steps": [_call("deep", "b")]},
    }
    branch = {"step_id": "maybe", "if": {"condition": {"inputs.go": True}, "then": [loop]}}
    [problem] = call_graph_problems("a", _doc(branch), {"b": _doc(_call("back", "a"))})
    assert problem.path == "/plan/0/if/then/0/for_each/steps/0/config/automation"


def test_no_cycle_and_templated_targets_are_not_problems() -> None:
    others = {"b": _doc(_call("to_c", "c")), "c": _doc(_noop("leaf"))}
    assert (
        call_graph_problems("a", _doc(_call("to_b", "b"), _call("dyn", "{{ inputs.which }}")), others) == []
    )
    assert list(calls(_doc(_call("dyn", "{{ inputs.which }}")))) == []


def test_a_diamond_is_not_a_cycle_and_an_invalid_document_has_no_calls() -> None:
    others = {"b": _doc(_call("d1", "d")), "c": _doc(_call("d2", "d")), "d": _doc(_noop("leaf"))}
    assert call_graph_problems("a", _doc(_call("b", "b"), _call("c", "c")), others) == []
    assert list(calls({"plan": "not a list"})) == []
