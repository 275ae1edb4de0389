"""The queue page in Chromium: runs held back by a serial automation, in promotion order with the depth
of their worker queue, cancelled from the page; and the empty state."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.support.browser import axe_violations, shot
from tests.support.loopback import Loopback
from tests.ui.conftest import Owner
from tests.ui.space_api import automation_needing_approval, space_api, wait_run_status
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)


def test_queued_runs_show_in_order_with_their_depth_and_are_cancelled_from_the_page(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    # The first run waits for a human, so the next ones stay queued behind it for as long as the test needs.
    automation = automation_needing_approval(
        ui_base,
        owner,
        "One at a time",
        f"{loopback.url}/count/queue-{uuid.uuid4().hex[:6]}",
        execution={"concurrency": "queue"},
    )
    fire = f"/automations/{automation['id']}/runs"
    first = space_api(ui_base, owner, "POST", fire, json={"inputs": {}}).json()
    wait_run_status(ui_base, owner, first["id"], "awaiting_approval")
    second, third = (space_api(ui_base, owner, "POST", fire, json={"inputs": {}}).json() for _ in range(2))
    assert (second["status"], third["status"]) == ("queued", "queued")

    sign_in(page, owner)
    page.goto("/queue")
    page.wait_for_selector("table.queue")
    order = page.eval_on_selector_all("table.queue tbody tr", "rows => rows.map(r => r.dataset.run)")
    assert order == [second["id"], third["id"]]
    depth = page.inner_text(f".depths [data-queue='{second['queue']}']")
    assert depth.startswith("2 "), depth
    assert not axe_violations(page), axe_violations(page)
    shot(page, "queue")

    page.click(f"button[aria-label='Cancel run {second['id'][:8]}']")
    page.wait_for_selector(f"text=Run {second['id'][:8]} cancelled.")
    page.wait_for_selector(f"table.queue tr[data-run='{second['id']}']", state="detached")
    assert space_api(ui_base, owner, "GET", f"/runs/{second['id']}").json()["status"] == "cancelled"
    assert space_api(ui_base, owner, "GET", f"/runs/{third['id']}").json()["status"] == "queued"


def test_an_empty_queue_says_so(page: Any, owner: Owner) -> None:
    sign_in(page, owner)
    page.goto("/queue")
    page.wait_for_selector("main .empty:has-text('Nothing is queued')")
    assert not axe_violations(page), axe_violations(page)
