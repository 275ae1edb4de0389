"""The approvals inbox in Chromium: a run that waits for a human shows there with its call, the badge
counts it, Approve once sends the call exactly once and the run finishes."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from tests.support.browser import axe_violations, shot
from tests.support.loopback import Loopback
from tests.ui.conftest import Owner
from tests.ui.space_api import automation_needing_approval, run_awaiting_approval, space_api, wait_run_status
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)


def test_a_waiting_run_is_approved_in_the_inbox_and_finishes(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    hits = f"inbox-{uuid.uuid4().hex[:6]}"
    automation = automation_needing_approval(ui_base, owner, "Needs a yes", f"{loopback.url}/count/{hits}")
    run = space_api(
        ui_base, owner, "POST", f"/automations/{automation['id']}/runs", json={"inputs": {}}
    ).json()
    wait_run_status(ui_base, owner, run["id"], "awaiting_approval")
    assert loopback.hits[hits] == 0

    sign_in(page, owner)
    page.wait_for_selector("#approval-count:text-is('1')")
    page.click("#nav-approvals")
    page.wait_for_selector("main h1:text-is('Approvals')")
    card = page.locator(".approval", has_text="http.request")
    card.wait_for()
    assert f"/count/{hits}" in card.inner_text(), "the inbox shows the call's parameters"
    assert not axe_violations(page), axe_violations(page)
    shot(page, "approvals-pending")

    card.get_by_role("button", name="Approve once").click()
    # The call POSTs: approving it takes a confirmation.
    page.get_by_role("dialog", name="Approve this call?").get_by_role("button", name="Yes, approve").click()
    page.wait_for_selector(".empty")
    done = wait_run_status(ui_base, owner, run["id"], "succeeded")
    assert done["status"] == "succeeded"
    assert loopback.hits[hits] == 1, "the approved call ran exactly once"
    page.wait_for_selector("#approval-count", state="hidden")
    shot(page, "approvals-empty")


def test_a_reason_being_typed_survives_the_read_the_opening_stream_asks_for(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    _, _, approval = run_awaiting_approval(
        ui_base, owner, "Typed while it opens", f"{loopback.url}/count/typed-{uuid.uuid4().hex[:6]}"
    )
    held: list[Any] = []

    sign_in(page, owner)
    page.route(re.compile(r".*/runs/events$"), lambda route: held.append(route))
    page.goto(f"/approvals/{approval['id']}")
    reason = page.locator(f"#reason-{approval['id']}")
    reason.fill("not on a Friday")
    for _ in range(200):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the page asked for its live stream"
    with page.expect_response(
        lambda response: (
            response.url.endswith(f"/approvals/{approval['id']}") and response.request.method == "GET"
        )
    ):
        for route in held:
            route.continue_()
    # The read found the approval as shown: nothing was painted again, so the reviewer's words stay.
    assert reason.input_value() == "not on a Friday"
    assert reason.evaluate("element => element.isConnected")
