"""The pictures in Chromium: the plan diagram (automation page and draft review, modes per step, used
with the keyboard alone, fifty steps laid out without overlap), the run timeline (a paused approval
and a failed step whose error is one key press away), and the run charts (space and automation, with
no runs, one day, and several days)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import SCREENSHOTS, axe_violations
from tests.support.drafts import envelope, review_reply
from tests.support.fake_llm import TEST_MODEL, FakeLlm, reply
from tests.support.loopback import Loopback
from tests.ui.conftest import Owner
from tests.ui.space_api import FIRST_MODEL_ANSWER_MS, space_api, wait_run_status
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _doc_shot(page: Any, selector: str, name: str) -> None:
    """A screenshot of one part of the page (kept small: the element, not the page), with the test
    output; into docs/ too with AUTOMATIONS_DOC_SHOTS=1, to renew the pictures the docs show."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(selector).screenshot(path=str(SCREENSHOTS / name))
    if os.environ.get("AUTOMATIONS_DOC_SHOTS") == "1":
        page.locator(selector).screenshot(path=str(DOCS / name))


def _step(step_id: str, url: str | None = None) -> dict[str, Any]:
    if url:
        return {"step_id": step_id, "action": "http_request", "config": {"method": "POST", "url": url}}
    return {"step_id": step_id, "action": "transform_data", "config": {"output": {"step": step_id}}}


def _no_overlap(page: Any) -> bool:
    result: bool = page.evaluate(
        """() => {
            const nodes = document.querySelectorAll('#plan-diagram .plan-node');
            const boxes = [...nodes].map((n) => n.getBoundingClientRect());
            const apart = (a, b) =>
                a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
            return boxes.every((a, i) => boxes.every((b, j) => i === j || apart(a, b)));
        }"""
    )
    return result


def _focused_node(page: Any) -> str | None:
    node: str | None = page.evaluate(
        "() => document.activeElement && document.activeElement.getAttribute('data-node')"
    )
    return node


def _tab_to(page: Any, start: str, target: str, presses: int = 5) -> None:
    """Focus node `start`, then press Tab until node `target` has the focus (at most `presses` times)."""
    page.locator(f"[data-node='{start}']").focus()
    for _ in range(presses):
        if _focused_node(page) == target:
            break
        page.keyboard.press("Tab")
    assert _focused_node(page) == target


def test_plan_diagram_shows_modes_and_opens_forms_from_the_keyboard(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback, fake_llm: FakeLlm
) -> None:
    definition = {
        "schema_version": "1.0",
        "name": "Fetch, tell, tidy up",
        "triggers": [
            {"type": "schedule", "config": {"cron": "0 9 * * 1-5"}},
            {"type": "webhook", "config": {}},
        ],
        "plan": [_step("fetch"), _step("tell", f"{loopback.url}/ok/diagram"), _step("wrap_up")],
        "execution": {"on_failure": [_step("cleanup")]},
    }
    automation = space_api(ui_base, owner, "POST", "/automations", json={"definition": definition}).json()
    space_api(
        ui_base,
        owner,
        "PUT",
        f"/automations/{automation['id']}/action-modes",
        json={"modes": {"http.request": "require_approval"}},
    )
    sign_in(page, owner)
    page.goto(f"/automations/{automation['id']}")
    page.wait_for_selector("#plan-diagram .plan-node[data-node='step-1'][data-mode='require_approval']")
    nodes = page.locator("#plan-diagram .plan-node")
    assert nodes.count() == 2 + 3 + 2, "two triggers, three steps, the failure entry and its step"
    assert page.get_attribute("[data-node='step-0']", "data-mode") == "none", "a transform calls nothing"
    assert "schedule 0 9 * * 1-5" in page.text_content("[data-node='trigger-0']")
    assert "require approval" in page.text_content("[data-node='step-1']")
    assert page.locator("#plan-diagram .plan-edge-failure").count() == 1
    assert _no_overlap(page)
    assert not axe_violations(page)
    _doc_shot(page, "#plan-diagram", "ui-plan-diagram.png")

    # Every part of the long page is one click away.
    page.click("nav[aria-label='Sections of this page'] a:text-is('Action modes')")
    assert page.evaluate("document.activeElement.id") == "modes-title"

    # Keyboard only: Enter on the "Plan" link goes to the diagram, Tab reaches the nodes in order,
    # Enter on a step opens that step's form.
    page.locator("nav[aria-label='Sections of this page'] a:text-is('Plan')").focus()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "plan-diagram-title"
    seen: list[str] = []
    for _ in range(10):
        page.keyboard.press("Tab")
        node = _focused_node(page)
        if node:
            seen.append(node)
        if node == "step-1":
            break
    assert seen[:4] == ["trigger-0", "trigger-1", "step-0", "step-1"], seen
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector(\"[data-section='/plan/1']\").contains(document.activeElement)"
    )
    # Shift+Tab back to the diagram, on to the on_failure step: Space opens it inside the general form.
    _tab_to(page, "step-2", "failure-0", presses=4)
    page.keyboard.press(" ")
    page.wait_for_function(
        "() => document.querySelector(\"[data-schemapath='root.execution.on_failure.0']\")"
        ".contains(document.activeElement)"
    )

    # An edit in the form redraws the diagram before it is saved.
    page.locator("[data-section='/plan/2'] input[name='root[step_id]']").fill("summarise")
    page.locator("[data-section='/plan/2'] input[name='root[step_id]']").press("Tab")
    page.wait_for_selector("[data-node='step-2']:has-text('summarise')")

    # Fifty steps: all drawn at full size, one below the other, none overlapping.
    many = {
        "schema_version": "1.0",
        "name": "Fifty steps",
        "plan": [_step(f"step_{n:02d}") for n in range(50)],
    }
    big = space_api(ui_base, owner, "POST", "/automations", json={"definition": many}).json()
    page.goto(f"/automations/{big['id']}")
    page.wait_for_selector("#plan-diagram .plan-node[data-node='step-49'][data-mode='none']")
    assert page.locator("#plan-diagram .plan-node-step").count() == 50
    assert _no_overlap(page)
    svg = page.locator("#plan-diagram svg")
    assert svg.get_attribute("width") == svg.get_attribute("viewBox").split()[2], "drawn at scale 1"

    # The draft review draws the draft's plan with the modes an unsaved preview gives it.
    fake_llm.reset()
    drafted = {
        "schema_version": "1.0",
        "name": "Ping the hook",
        "triggers": [{"type": "webhook", "config": {}}],
        "plan": [_step("shape"), _step("post", "https://hooks.example.com/eng")],
    }
    fake_llm.script(envelope(drafted), review_reply("Posts to the hook."))
    page.goto("/automations/new")
    page.fill("#request", "When called, post to the hook")
    page.click("#draft-button")
    page.wait_for_selector(
        "#draft-plan .plan-node[data-node='step-1'][data-mode]", timeout=FIRST_MODEL_ANSWER_MS
    )
    assert page.get_attribute("#draft-plan [data-node='step-1']", "data-mode") == "require_approval", (
        "the draft proposes that writes wait for approval"
    )
    page.locator("#draft-plan [data-node='step-1']").focus()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector(\"[data-section='/plan/1']\").contains(document.activeElement)"
    )
    assert not axe_violations(page)


def test_run_timeline_shows_the_approval_pause_and_the_failed_steps_error(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    name = f"timeline-{uuid.uuid4().hex[:6]}"
    definition = {
        "schema_version": "1.0",
        "name": "Ask, then fail",
        "plan": [_step("prepare"), _step("post", f"{loopback.url}/status/500/{name}")],
    }
    automation = space_api(ui_base, owner, "POST", "/automations", json={"definition": definition}).json()
    space_api(
        ui_base,
        owner,
        "PUT",
        f"/automations/{automation['id']}/action-modes",
        json={"modes": {"http.request": "require_approval"}},
    )
    run = space_api(
        ui_base, owner, "POST", f"/automations/{automation['id']}/runs", json={"inputs": {}}
    ).json()
    wait_run_status(ui_base, owner, run["id"], "awaiting_approval")
    [approval] = space_api(ui_base, owner, "GET", "/approvals").json()["items"]
    space_api(ui_base, owner, "POST", f"/approvals/{approval['id']}/approve", json={"scope": "once"})
    wait_run_status(ui_base, owner, run["id"], "failed")

    sign_in(page, owner)
    page.goto(f"/runs/{run['id']}")
    page.wait_for_selector("#run-timeline svg")
    bars = page.locator("#run-timeline .bar")
    statuses = [bars.nth(i).get_attribute("data-status") for i in range(bars.count())]
    assert statuses.count("succeeded") == 1, statuses
    assert statuses.count("failed") == 1, statuses
    assert page.locator("#run-timeline .bar-approval").count() == 1, "the pause for the approval"
    assert page.get_attribute("#run-timeline .bar-approval", "data-status") == "approved"
    assert not axe_violations(page)

    # The error of the failed step: focus its bar with the keyboard, Enter shows it.
    failed = page.locator("#run-timeline .bar-step[data-status='failed']")
    assert "show the error" in failed.get_attribute("aria-label")
    page.locator("main h1").focus()
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.getAttribute('data-status') === 'failed'"):
            break
    page.keyboard.press("Enter")
    error = page.locator("#timeline-error")
    error.wait_for()
    assert "500" in error.inner_text()
    _doc_shot(page, "#run-timeline", "ui-run-timeline.png")


def test_dashboard_approvals_failures_spend_against_caps_and_queue(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback, fake_llm: FakeLlm
) -> None:
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    sign_in(page, owner)
    assert page.url.rstrip("/") == ui_base, "signing in lands on the dashboard"
    for panel in ("approvals", "failing", "spend", "queue"):
        page.wait_for_selector(f"#dash-{panel} .empty")
    assert not axe_violations(page)
    assert not [url for url in fetched if "/assets/plan_diagram-" in url or "/assets/charts-" in url], (
        "the diagram and chart code load only on the pages that draw them"
    )

    # One automation that fails, one that waits for approval, one that spends under its own cap.
    failing = {
        "schema_version": "1.0",
        "name": "Breaks",
        "plan": [_step("post", f"{loopback.url}/status/500/dash")],
    }
    broken = space_api(ui_base, owner, "POST", "/automations", json={"definition": failing}).json()
    run = space_api(ui_base, owner, "POST", f"/automations/{broken['id']}/runs", json={"inputs": {}}).json()
    wait_run_status(ui_base, owner, run["id"], "failed")
    asking = {"schema_version": "1.0", "name": "Asks", "plan": [_step("post", f"{loopback.url}/ok/dash")]}
    asks = space_api(ui_base, owner, "POST", "/automations", json={"definition": asking}).json()
    space_api(
        ui_base,
        owner,
        "PUT",
        f"/automations/{asks['id']}/action-modes",
        json={"modes": {"http.request": "require_approval"}},
    )
    run = space_api(ui_base, owner, "POST", f"/automations/{asks['id']}/runs", json={"inputs": {}}).json()
    wait_run_status(ui_base, owner, run["id"], "awaiting_approval")
    fake_llm.reset()
    fake_llm.script(reply("Done.", prompt_tokens=400, completion_tokens=60))
    spender = {
        "schema_version": "1.0",
        "name": "Spends",
        "plan": [
            {
                "step_id": "sum_up",
                "action": "llm_complete",
                "config": {"model": TEST_MODEL, "messages": [{"role": "user", "content": "Sum up."}]},
            }
        ],
        "execution": {"cost_cap_daily_usd": 0.01},
    }
    spends = space_api(ui_base, owner, "POST", "/automations", json={"definition": spender}).json()
    run = space_api(ui_base, owner, "POST", f"/automations/{spends['id']}/runs", json={"inputs": {}}).json()
    spent = wait_run_status(ui_base, owner, run["id"], "succeeded", timeout=FIRST_MODEL_ANSWER_MS / 1000)
    # Held back by the queue policy behind a run that waits for approval.
    queued = {**asking, "name": "Queues", "execution": {"concurrency": "queue"}}
    queues = space_api(ui_base, owner, "POST", "/automations", json={"definition": queued}).json()
    space_api(
        ui_base,
        owner,
        "PUT",
        f"/automations/{queues['id']}/action-modes",
        json={"modes": {"http.request": "require_approval"}},
    )
    first = space_api(ui_base, owner, "POST", f"/automations/{queues['id']}/runs", json={"inputs": {}}).json()
    wait_run_status(ui_base, owner, first["id"], "awaiting_approval")
    second = space_api(
        ui_base, owner, "POST", f"/automations/{queues['id']}/runs", json={"inputs": {}}
    ).json()
    assert second["status"] == "queued", second

    failed_row = page.locator(f"#dash-failing li[data-automation='{broken['id']}']")
    row = page.locator(f"#dash-spend tr[data-automation='{spends['id']}']")
    # Statistics are answered from a cache for up to 10 s (docs/ui.md), and the empty dashboard asked for
    # them on sign-in: reload until the cached answers have made way for ones that count the failure
    # and the spend.
    for _ in range(15):
        page.goto("/")
        page.wait_for_selector("#dash-failing :is(.empty, li)")
        page.wait_for_selector("#dash-spend :is(.empty, tr, p)")
        if failed_row.count() and row.count():
            break
        page.wait_for_timeout(1000)
    page.wait_for_selector("#dash-approvals-count:text-is('2 pending')")
    assert page.locator("#dash-approvals a[href^='/approvals/']").count() == 2
    assert "1 of 1 run failed" in failed_row.inner_text()
    assert "Breaks" in failed_row.inner_text()
    row.wait_for()
    assert "$0.01" in row.inner_text(), "the automation's own daily cap"
    assert float(page.get_attribute(f"#dash-spend tr[data-automation='{spends['id']}'] meter", "value")) == (
        pytest.approx(spent["cost_usd"])
    )
    assert page.locator("#dash-queue li").first.inner_text().startswith("1 on runs.")
    assert not axe_violations(page)
    _doc_shot(page, "main", "ui-dashboard.png")


def test_charts_with_no_runs_one_day_and_several(
    page: Any, owner: Owner, ui_base: str, fake_llm: FakeLlm
) -> None:
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    sign_in(page, owner)
    page.goto("/automations")
    page.wait_for_selector("#space-stats .stats-empty")
    assert [url for url in fetched if "/assets/charts-" in url], "the chart code is fetched by this page"
    assert "No runs in the last 14 days" in page.inner_text("#space-stats")
    assert page.locator("#space-stats canvas").count() == 0
    assert not axe_violations(page)

    definition = {"schema_version": "1.0", "name": "Counted", "plan": [_step("only")]}
    automation = space_api(ui_base, owner, "POST", "/automations", json={"definition": definition}).json()
    for _ in range(3):
        run = space_api(ui_base, owner, "POST", f"/automations/{automation['id']}/runs", json={"inputs": {}})
        wait_run_status(ui_base, owner, run.json()["id"], "succeeded")

    # One day (today): one bar in the middle of the chart, and the numbers as a table.
    page.goto(f"/automations/{automation['id']}")
    page.wait_for_selector("#automation-stats canvas")
    page.select_option("#automation-stats-days", "1")
    page.wait_for_selector("#automation-stats-summary:has-text('3 runs today')")
    page.click("#automation-stats summary")
    rows = page.locator("#automation-stats .stats-table tbody tr")
    assert rows.count() == 1
    assert rows.first.inner_text().split("\t")[1:3] == ["3", "3"]
    assert page.locator("#automation-stats figure.chart canvas").count() == 1, "no spend: no spend chart"
    assert page.locator("#automation-stats .stats-no-spend").is_visible()
    assert not axe_violations(page)

    # A run that spends on a model: the space's charts show the spend too.
    fake_llm.reset()
    fake_llm.script(reply("Done.", prompt_tokens=400, completion_tokens=60))
    spender = {
        "schema_version": "1.0",
        "name": "Spends",
        "plan": [
            {
                "step_id": "sum_up",
                "action": "llm_complete",
                "config": {"model": TEST_MODEL, "messages": [{"role": "user", "content": "Sum up."}]},
            }
        ],
    }
    spending = space_api(ui_base, owner, "POST", "/automations", json={"definition": spender}).json()
    run = space_api(ui_base, owner, "POST", f"/automations/{spending['id']}/runs", json={"inputs": {}}).json()
    assert (
        wait_run_status(ui_base, owner, run["id"], "succeeded", timeout=FIRST_MODEL_ANSWER_MS / 1000)[
            "cost_usd"
        ]
        > 0
    )

    # The list's answer for 14 days (and the dashboard's for 7 and 1) was kept a few seconds, cached
    # when there were no runs: another range is asked afresh.
    page.goto("/automations")
    page.wait_for_selector("#space-stats-summary")
    page.select_option("#space-stats-days", "30")
    page.wait_for_selector("#space-stats-summary:has-text('4 runs in the last 30 days')")
    assert page.locator("#space-stats figure.chart canvas").count() == 2, "runs and spend"
    assert page.locator("#space-stats .u-legend").first.inner_text().count("succeeded") == 1
    assert not axe_violations(page)
    _doc_shot(page, "#space-stats", "ui-charts.png")
