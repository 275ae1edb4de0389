"""The run page in Chromium: a finished run shows its capability calls with their modes and outcomes,
the file it kept (downloaded through the API's signed link), its model spend per step, and replays
from the keyboard into a new run; the live stream reconnects with Last-Event-ID after it drops."""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import axe_violations, shot
from tests.support.fake_llm import TEST_MODEL, FakeLlm, reply
from tests.support.loopback import Loopback
from tests.ui.conftest import Owner
from tests.ui.space_api import run_awaiting_approval, space_api, wait_run_status
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)

ROWS = [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace"}]


def _finished_run(
    ui_base: str, owner: Owner, fake_llm: FakeLlm, loopback: Loopback, hits: str
) -> dict[str, Any]:
    definition = {
        "schema_version": "1.0",
        "name": "Report with a file",
        "plan": [
            {
                "step_id": "rows",
                "action": "transform_data",
                "config": {"output": ROWS, "save_as_artifact": {"name": "people.csv", "format": "csv"}},
                "output_as": "table",
            },
            {
                "step_id": "tell",
                "action": "http_request",
                "config": {"method": "POST", "url": f"{loopback.url}/count/{hits}"},
            },
            {
                "step_id": "sum_up",
                "action": "llm_complete",
                "config": {"model": TEST_MODEL, "messages": [{"role": "user", "content": "Sum up."}]},
            },
        ],
    }
    fake_llm.reset()
    fake_llm.script(reply("Two people.", prompt_tokens=40, completion_tokens=6))
    automation = space_api(ui_base, owner, "POST", "/automations", json={"definition": definition}).json()
    run = space_api(
        ui_base, owner, "POST", f"/automations/{automation['id']}/runs", json={"inputs": {}}
    ).json()
    return wait_run_status(ui_base, owner, run["id"], "succeeded")


def test_a_run_shows_calls_artifacts_and_spend_and_replays_from_the_keyboard(
    page: Any, owner: Owner, ui_base: str, fake_llm: FakeLlm, loopback: Loopback
) -> None:
    hits = f"runpage-{uuid.uuid4().hex[:6]}"
    run = _finished_run(ui_base, owner, fake_llm, loopback, hits)
    assert loopback.hits[hits] == 1

    sign_in(page, owner)
    page.goto(f"/runs/{run['id']}")
    page.wait_for_selector("main h1:has-text('Run')")

    call = page.locator("table.invocations tr[data-status='executed']", has_text="http.request")
    call.wait_for()
    assert "allow" in call.inner_text(), "the call's mode is shown"
    assert "executed" in call.inner_text()

    artifact = page.locator("table.artifacts tr", has_text="people.csv")
    artifact.wait_for()
    assert "text/csv" in artifact.inner_text()
    with page.expect_download() as downloaded:
        artifact.get_by_role("button", name="Download people.csv").click()
    download = downloaded.value
    assert download.suggested_filename == "people.csv"
    content = Path(download.path()).read_text(encoding="utf-8")
    assert "Ada" in content, content
    assert "Grace" in content, content

    spend = page.locator("table.spend tr[data-step='sum_up']")
    spend.wait_for()
    (row,) = run["llm_spend"]
    assert spend.locator("td").nth(1).inner_text() == "1"
    assert spend.locator("td").nth(2).inner_text() == "40"
    assert f"${row['cost_usd']:.6f}" in spend.inner_text()
    assert not axe_violations(page), axe_violations(page)
    shot(page, "run-page")

    # Replay with the keyboard alone: pick the version, move to the button, press Enter.
    fake_llm.script(reply("Still two.", prompt_tokens=40, completion_tokens=6))
    page.focus("#replay-version")
    page.keyboard.press("ArrowDown")
    assert page.eval_on_selector("#replay-version", "el => el.value") == "current"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "replay-run"
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/runs/(?!" + run["id"] + r")[0-9a-f-]{36}$"))
    new_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector(f"main a[href='/runs/{run['id']}']")
    replayed = wait_run_status(ui_base, owner, new_id, "succeeded")
    assert replayed["replay_of"] == run["id"]
    assert replayed["inputs"] == run["inputs"]
    page.wait_for_selector("main .heading [data-status='succeeded']")
    assert loopback.hits[hits] == 2, "the replay made the call again"
    shot(page, "run-page-replay")


def test_a_replay_refused_by_the_api_is_shown_on_the_page(
    page: Any, owner: Owner, ui_base: str, fake_llm: FakeLlm, loopback: Loopback
) -> None:
    run = _finished_run(ui_base, owner, fake_llm, loopback, f"refused-{uuid.uuid4().hex[:6]}")
    space_api(ui_base, owner, "POST", f"/automations/{run['automation_id']}/archive")
    sign_in(page, owner)
    page.goto(f"/runs/{run['id']}")
    page.click("#replay-run")
    page.wait_for_selector("main [role=alert]")
    assert page.url.endswith(f"/runs/{run['id']}"), "a refused replay stays on the run"
    assert not axe_violations(page), axe_violations(page)


def test_an_unknown_run_shows_an_error_with_a_way_back(page: Any, owner: Owner) -> None:
    sign_in(page, owner)
    page.goto(f"/runs/{uuid.uuid4()}")
    page.wait_for_selector("main [role=alert]:has-text('run_not_found')")
    page.wait_for_selector("main a[href='/runs']")


def test_the_live_stream_reconnects_with_the_last_event_id_after_it_drops(
    page: Any, owner: Owner, ui_base: str
) -> None:
    seen: list[str] = []
    dropped_id = "1763900000123"

    def stream(route: Any) -> None:
        last = route.request.headers.get("last-event-id")
        if last is None:
            # One event, then the stream ends: what the page sees when a proxy or a restart drops it.
            body = (
                "retry: 200\n\n"
                f"id: {dropped_id}\nevent: run\n"
                f'data: {{"run_id":"{uuid.uuid4()}","automation_id":"{uuid.uuid4()}",'
                f'"status":"running","at":{dropped_id}}}\n\n'
            )
            route.fulfill(status=200, headers={"Content-Type": "text/event-stream"}, body=body)
            return
        seen.append(last)
        route.continue_()

    sign_in(page, owner)
    page.route(re.compile(r".*/runs/events$"), stream)
    page.goto("/runs")
    page.wait_for_selector("main h1:text-is('Runs')")
    deadline = time.monotonic() + 20
    while dropped_id not in seen and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert dropped_id in seen, seen


@pytest.mark.parametrize("where", ["run page", "runs list"])
def test_a_run_that_ends_before_the_live_stream_opens_is_shown_ended(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback, where: str
) -> None:
    automation, run, approval = run_awaiting_approval(
        ui_base, owner, "Ends unheard", f"{loopback.url}/count/unheard-{uuid.uuid4().hex[:6]}"
    )
    held: list[Any] = []
    if where == "run page":
        path, badge = f"/runs/{run['id']}", "main .heading [data-status='{}']"
    else:
        path, badge = (
            f"/runs?automation={automation['id']}",
            f"#runs-table tr[data-run='{run['id']}'] [data-status='{{}}']",
        )

    sign_in(page, owner)
    page.route(re.compile(r".*/runs/events$"), lambda route: held.append(route))
    page.goto(path)
    page.locator(badge.format("awaiting_approval")).wait_for()
    # The page has read the run waiting; it ends before the stream opens, so its events go unheard.
    decided = space_api(
        ui_base, owner, "POST", f"/approvals/{approval['id']}/approve", json={"scope": "once"}
    )
    assert decided.status_code == 200, decided.text
    wait_run_status(ui_base, owner, run["id"], "succeeded")
    assert held, "the page asked for its live stream"
    for route in held:
        route.continue_()
    page.locator(badge.format("succeeded")).wait_for()
