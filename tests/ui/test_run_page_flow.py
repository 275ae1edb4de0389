"""The run page of a plan with blocks and a child automation, in Chromium: each loop iteration's steps
by path in the list and the timeline, and parent and child linked both ways."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.browser import axe_violations
from tests.ui.conftest import Owner
from tests.ui.space_api import space_api, wait_run_status
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)


def _create(ui_base: str, owner: Owner, definition: dict[str, Any]) -> dict[str, Any]:
    created: dict[str, Any] = space_api(
        ui_base, owner, "POST", "/automations", json={"definition": definition}
    ).json()
    return created


def test_loop_iterations_and_a_child_run_are_shown_and_linked(page: Any, owner: Owner, ui_base: str) -> None:
    child = _create(
        ui_base,
        owner,
        {
            "schema_version": "1.0",
            "name": "Double it",
            "inputs": {"schema": {"type": "object", "properties": {"n": {"type": "integer"}}}},
            "plan": [
                {
                    "step_id": "double",
                    "action": "transform_data",
                    "config": {"output": "{{ inputs.n * 2 }}"},
                    "output_as": "value",
                }
            ],
        },
    )
    # A paused automation refuses fires, a parent's too: the child is activated.
    space_api(ui_base, owner, "POST", f"/automations/{child['id']}/activate")
    parent = _create(
        ui_base,
        owner,
        {
            "schema_version": "1.0",
            "name": "Each, then a child",
            "plan": [
                {
                    "step_id": "each",
                    "for_each": {
                        "items": [1, 2],
                        "steps": [
                            {
                                "step_id": "square",
                                "action": "transform_data",
                                "config": {"output": "{{ item * item }}"},
                            }
                        ],
                    },
                    "output_as": "squares",
                },
                {
                    "step_id": "ask_child",
                    "action": "call_automation",
                    "config": {"automation": child["id"], "inputs": {"n": "{{ squares[1] }}"}},
                    "output_as": "doubled",
                },
            ],
        },
    )
    run = space_api(ui_base, owner, "POST", f"/automations/{parent['id']}/runs", json={"inputs": {}}).json()
    finished = wait_run_status(ui_base, owner, run["id"], "succeeded")
    assert finished["output"]["doubled"] == {"value": 8}, "the child's output"

    sign_in(page, owner)
    page.goto(f"/runs/{run['id']}")
    page.wait_for_selector("#child-runs a")
    assert "ask_child: succeeded" in page.inner_text("#child-runs")
    body = page.inner_text("main")
    for path in ("each/0/square", "each/1/square"):
        assert path in body, f"{path} is listed by its path"
    assert not axe_violations(page), axe_violations(page)

    page.click("#child-runs a")
    page.wait_for_selector("dt:text-is('Started by')")
    assert f"run {run['id'][:8]}" in page.inner_text("main dl.facts")
