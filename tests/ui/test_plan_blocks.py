"""Plans with blocks in Chromium: the diagram draws a branch and a loop with every step's mode, a nested
step's form opens from its node, and the editor adds, edits and saves steps inside a block."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.browser import axe_violations
from tests.support.loopback import Loopback
from tests.ui.conftest import Owner
from tests.ui.space_api import space_api
from tests.ui.test_draft_to_run import sign_in
from tests.ui.test_visual_pages import _doc_shot, _no_overlap, _step, _tab_to

pytestmark = pytest.mark.timeout(300)


def _definition(url: str) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": "Refunds and tickets",
        "triggers": [{"type": "webhook", "config": {}}],
        "plan": [
            {
                "step_id": "by_amount",
                "if": {
                    "condition": {"inputs.amount": {"gt": 1000}},
                    "then": [_step("ask_finance", url)],
                    "else": [_step("pay")],
                },
            },
            {
                "step_id": "each_ticket",
                "for_each": {"items": [1, 2, 3], "steps": [_step("classify")]},
                "output_as": "labels",
            },
            {**_step("report"), "when": "{{ labels | length > 0 }}"},
        ],
        "execution": {
            "on_failure": [
                {
                    "step_id": "tidy",
                    "action": "transform_data",
                    "when": "{{ run.failed_step_id == 'ask_finance' }}",
                    "config": {"output": "{{ run.error.message }}"},
                }
            ]
        },
    }


def _open(page: Any, owner: Owner, ui_base: str, loopback: Loopback) -> dict[str, Any]:
    automation = space_api(
        ui_base, owner, "POST", "/automations", json={"definition": _definition(f"{loopback.url}/ok/b")}
    ).json()
    space_api(
        ui_base,
        owner,
        "PUT",
        f"/automations/{automation['id']}/action-modes",
        json={"modes": {"http.request": "require_approval"}},
    )
    sign_in(page, owner)
    page.goto(f"/automations/{automation['id']}")
    return automation


def test_the_diagram_draws_branches_and_loops_with_modes_and_opens_nested_forms(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    _open(page, owner, ui_base, loopback)
    page.wait_for_selector("#plan-diagram [data-node='step-0-then-0'][data-mode='require_approval']")
    assert page.get_attribute("[data-node='step-0']", "data-kind") == "branch"
    assert page.get_attribute("[data-node='step-0-else-0']", "data-mode") == "none"
    assert page.get_attribute("[data-node='step-1']", "data-kind") == "loop"
    labels = page.locator("#plan-diagram .plan-edge-label").all_text_contents()
    assert {"then", "else", "each item", "next item", "after the last"} <= set(labels), labels
    # The branch's two ends both lead on to the loop; the loop's body leads back to it.
    edges = page.locator("#plan-diagram .plan-edge").evaluate_all(
        "els => els.map(e => [e.dataset.from, e.dataset.to, e.getAttribute('class')])"
    )
    pairs = {(source, target) for source, target, _ in edges}
    assert {("step-0-then-0", "step-1"), ("step-0-else-0", "step-1"), ("step-1-each-0", "step-1")} <= pairs
    assert ("step-1", "step-2") in pairs
    assert _no_overlap(page)
    assert not axe_violations(page), axe_violations(page)
    _doc_shot(page, "#plan-diagram", "ui-plan-blocks.png")

    # Keyboard only: Tab to the loop's body step, Enter opens its own form.
    _tab_to(page, "step-1", "step-1-each-0")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector(\"[data-section='/plan/1/for_each/steps/0']\")"
        ".contains(document.activeElement)"
    )


def test_steps_inside_blocks_are_added_edited_and_saved(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    automation = _open(page, owner, ui_base, loopback)
    body = page.locator("[data-section='/plan/1/for_each/steps/0']")
    body.wait_for()
    assert "Loop" in page.locator("[data-section='/plan/1'] h3").inner_text()

    # A step added to the loop's body lands there, with an id unused anywhere in the plan.
    page.select_option("#add-plan-1-for_each-steps-kind", "http_request")
    page.click("#add-plan-1-for_each-steps")
    added = page.locator("[data-section='/plan/1/for_each/steps/1']")
    added.wait_for()
    assert "http_request" in added.locator("h3").inner_text()
    url = added.locator("input[name='root[config][url]']")
    url.fill("https://tickets.example.com/label")
    url.press("Tab")
    page.wait_for_selector("#plan-diagram [data-node='step-1-each-1']")

    # A new branch from the plan's adder comes with one step in its then list, ids unused so far.
    page.select_option("#add-step-kind", "block:if")
    page.click("#add-step")
    page.locator("[data-section='/plan/3/if/then/0']").wait_for()
    page.click("#plan-remove-3")
    page.locator("[data-section='/plan/3']").wait_for(state="detached")

    # The condition is edited as JSON text; the nested step's own field as usual.
    condition = page.locator("[data-section='/plan/0'] textarea[name='root[if][condition]']")
    condition.fill(json.dumps({"inputs.amount": {"gte": 500}}))
    condition.press("Tab")
    step_id = page.locator("[data-section='/plan/0/if/else/0'] input[name='root[step_id]']")
    step_id.fill("pay_now")
    step_id.press("Tab")
    page.wait_for_selector("[data-node='step-0-else-0']:has-text('pay_now')")
    assert not axe_violations(page), axe_violations(page)

    page.click("#save-definition")
    page.wait_for_selector("#version:text-is('version 2')")
    saved = space_api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()["definition"]
    branch, loop = saved["plan"][0]["if"], saved["plan"][1]["for_each"]
    assert branch["condition"] == {"inputs.amount": {"gte": 500}}
    assert [step["step_id"] for step in branch["else"]] == ["pay_now"]
    assert [step["step_id"] for step in branch["then"]] == ["ask_finance"]
    assert [step["step_id"] for step in loop["steps"]] == ["classify", "http_request"]
    assert loop["steps"][1]["config"]["url"] == "https://tickets.example.com/label"
    assert loop["items"] == [1, 2, 3], "a literal list stays a list"
    assert saved["plan"][1]["output_as"] == "labels"


def test_forms_follow_the_schemas_hints_and_check_templates_as_they_are_typed(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    automation = _open(page, owner, ui_base, loopback)
    form = page.locator("[data-section='/plan/2']")
    form.wait_for()
    step_id = form.locator("input[name='root[step_id]']")
    assert step_id.get_attribute("placeholder") == "fetch_orders"
    names = form.locator("[name^='root[']").evaluate_all("els => els.map(e => e.name)")
    assert names.index("root[step_id]") < names.index("root[action]") < names.index("root[when]"), names
    assert names.index("root[when]") < names.index("root[config][output][step]"), names
    assert form.locator("textarea[name='root[when]']").count() == 1, "x-widget template: a multi-line field"
    # The on_failure steps, inside the general form, get the template editor too.
    page.locator(
        "[data-section='/'] [name='root[execution][on_failure][0][when]'][data-template='ready']"
    ).wait_for(state="attached")

    # A template the server refuses is marked beside its field before anything is saved.
    url = page.locator("[data-section='/plan/0/if/then/0'] input[name='root[config][url]']")
    url.fill(f"{loopback.url}/ok/{{{{ inputs.order_id | no_such_filter }}}}")
    mark = page.locator("[data-section='/plan/0/if/then/0'] .mark.problem")
    mark.wait_for()
    assert "no_such_filter" in mark.inner_text()
    assert space_api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()["version"] == 1
