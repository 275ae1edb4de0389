"""The validator on plans with blocks: pointers into nested step lists, and what each step may read."""

from __future__ import annotations

from typing import Any

from app.engine.validation import Vocabulary, validate_definition
from tests.engine.test_validator import check


def _step(step_id: str, output: Any = 1, **extra: Any) -> dict[str, Any]:
    return {"step_id": step_id, "action": "transform_data", "config": {"output": output}, **extra}


def _plan(*steps: dict[str, Any], on_failure: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    document: dict[str, Any] = {"schema_version": "1.0", "name": "t", "plan": list(steps)}
    if on_failure is not None:
        document["execution"] = {"on_failure": on_failure}
    return document


def _if(
    step_id: str, then: list[Any], otherwise: list[Any] | None = None, condition: Any = None
) -> dict[str, Any]:
    block: dict[str, Any] = {"condition": condition or {"inputs.amount": {"gt": 1000}}, "then": then}
    if otherwise is not None:
        block["else"] = otherwise
    return {"step_id": step_id, "if": block}


def _loop(
    step_id: str, steps: list[Any], items: Any = "{{ fetched }}", output_as: str | None = None, **block: Any
) -> dict[str, Any]:
    step: dict[str, Any] = {"step_id": step_id, "for_each": {"items": items, "steps": steps, **block}}
    if output_as is not None:
        step["output_as"] = output_as
    return step


def test_a_valid_tree_has_no_problems() -> None:
    document = _plan(
        _step("fetch", [1, 2], output_as="fetched"),
        _loop(
            "each",
            [
                _step("double", "{{ item * 2 }}", output_as="doubled"),
                _if("big", [_step("note", "{{ doubled }} at {{ index }}")]),
            ],
            output_as="all",
        ),
        _step("report", "{{ all | length }}"),
    )
    assert check(document) == []


def test_shape_errors_point_into_nested_lists() -> None:
    document = _plan(
        _if(
            "branch",
            [{"step_id": "Bad", "action": "transform_data"}],
            [_loop("each", [{"step_id": "x", "bogus": 1}])],
        )
    )
    paths = {path for path, code, _ in check(document) if code == "schema"}
    assert "/plan/0/if/then/0/step_id" in paths
    assert "/plan/0/if/else/0/for_each/steps/0/bogus" in paths


def test_step_ids_are_unique_across_the_whole_tree() -> None:
    document = _plan(_step("a"), _if("branch", [_step("a")], [_step("b")]))
    assert ("/plan/1/if/then/0/step_id", "duplicate_step_id", "error") in check(document)


def test_a_binding_inside_a_loop_is_not_read_after_it() -> None:
    document = _plan(
        _step("fetch", [1], output_as="fetched"),
        _loop("each", [_step("inner", "{{ item }}", output_as="one")], output_as="all"),
        _step("after", "{{ one }}"),
    )
    assert ("/plan/2/config/output", "reference_outside_loop", "error") in check(document)


def test_a_loop_body_cannot_read_the_loop_own_output() -> None:
    document = _plan(
        _step("fetch", [1], output_as="fetched"),
        _loop("each", [_step("inner", "{{ all }}")], output_as="all"),
    )
    assert ("/plan/1/for_each/steps/0/config/output", "reference_before_binding", "error") in check(document)


def test_item_and_index_exist_only_inside_a_loop() -> None:
    found = check(_plan(_step("a", "{{ item }} {{ index }}")))
    assert found == [("/plan/0/config/output", "unknown_reference", "error")] * 2


def test_item_and_index_are_reserved_names() -> None:
    document = _plan(_step("a", output_as="item"))
    assert ("/plan/0/output_as", "reserved_name", "error") in check(document)


def test_a_branch_binding_is_a_warning_after_the_if_and_an_error_in_the_other_branch() -> None:
    document = _plan(
        _if("branch", [_step("yes", output_as="approved")], [_step("no", "{{ approved }}")]),
        _step("after", "{{ approved }}"),
    )
    found = check(document)
    assert ("/plan/0/if/else/0/config/output", "reference_other_branch", "error") in found
    assert ("/plan/1/config/output", "maybe_unbound", "warning") in found


def test_the_condition_is_a_filter_with_templates_of_the_context() -> None:
    bad = _plan(_if("branch", [_step("a")], condition={"inputs.amount": {"between": 1}}))
    assert any(
        path.startswith("/plan/0/if/condition") and code == "invalid_filter" for path, code, _ in check(bad)
    )
    unknown = _plan(_if("branch", [_step("a")], condition={"inputs.amount": {"gt": "{{ limit }}"}}))
    assert ("/plan/0/if/condition/inputs.amount/gt", "unknown_reference", "error") in check(unknown)


def test_literal_items_over_the_maximum_and_a_plain_string_are_refused() -> None:
    too_many = _plan(_loop("each", [_step("a")], items=list(range(11)), max_items=10))
    assert ("/plan/0/for_each/items", "too_many_items", "error") in check(too_many)
    plain = _plan(_loop("each", [_step("a")], items="not a template"))
    assert ("/plan/0/for_each/items", "items_not_a_list", "error") in check(plain)


def test_a_loop_over_more_than_the_ceiling_is_a_schema_error() -> None:
    document = _plan(_loop("each", [_step("a")], items=[1]))
    document["plan"][0]["for_each"]["max_items"] = 10_001
    assert ("/plan/0/for_each/max_items", "schema", "error") in check(document)


def test_blocks_nest_at_most_five_deep() -> None:
    inner: dict[str, Any] = _step("leaf")
    for depth in range(6):
        inner = _if(f"level{depth}", [inner])
    assert any(code == "too_deep" for _, code, _ in check(_plan(inner)))


def test_on_failure_steps_may_not_wait() -> None:
    document = _plan(
        _step("a"), on_failure=[{"step_id": "pause", "action": "wait", "config": {"for": "PT1M"}}]
    )
    problems = validate_definition(document)
    assert ("/execution/on_failure/0/action", "not_allowed_in_on_failure") in [
        (p.path, p.code) for p in problems
    ]


def test_on_failure_reads_plan_bindings_but_not_loop_bodies() -> None:
    document = _plan(
        _step("fetch", [1], output_as="fetched"),
        _loop("each", [_step("inner", output_as="one")]),
        on_failure=[_step("cleanup", "{{ fetched }} {{ one }}")],
    )
    found = check(document)
    assert ("/execution/on_failure/0/config/output", "reference_outside_loop", "error") in found
    assert [code for path, code, _ in found if path.startswith("/execution")] == ["reference_outside_loop"]


def test_a_wait_past_the_maximum_is_refused_at_save_unless_templated() -> None:
    def wait(config: dict[str, Any]) -> list[tuple[str, str]]:
        document = _plan({"step_id": "pause", "action": "wait", "config": config})
        return [(p.path, p.code) for p in validate_definition(document) if p.severity == "error"]

    assert wait({"for": "P31D"}) == [("/plan/0/config/for", "wait_too_long")]
    assert wait({"for": "P2D"}) == []
    assert wait({"for": "two days"}) == [("/plan/0/config/for", "invalid_duration")]
    assert wait({"for": "{{ inputs.delay }}"}) == [], "a template is checked when the step runs"
    event = _plan(
        {"step_id": "reply", "action": "wait_for_event", "config": {"event_type": "x.y", "timeout": "P60D"}}
    )
    assert ("/plan/0/config/timeout", "wait_too_long") in [
        (p.path, p.code) for p in validate_definition(event)
    ]
    shorter = Vocabulary(max_wait_seconds=3600)
    inside_loop = _plan(
        _loop("each", [{"step_id": "pause", "action": "wait", "config": {"for": "PT2H"}}], items=[1])
    )
    found = [(p.path, p.code) for p in validate_definition(inside_loop, shorter)]
    assert ("/plan/0/for_each/steps/0/config/for", "wait_too_long") in found


def test_a_step_whose_action_is_not_a_string_is_a_schema_error_not_a_crash() -> None:
    document = _plan(_step("a"), on_failure=[{"step_id": "b", "action": {}, "config": {}}])
    document["plan"].append({"step_id": "c", "action": ["wait"], "config": {}})
    found = check(document)
    assert ("/execution/on_failure/0/action", "schema", "error") in found
    assert ("/plan/1/action", "schema", "error") in found
