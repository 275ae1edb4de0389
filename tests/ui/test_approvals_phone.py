"""Approvals on a phone (375 px wide, touch) in Chromium: the inbox links each call to its own page,
which a notification's link opens by id; every control is a 44 px touch target; approving a call that
changes something outside takes a tap and a confirmation, and Cancel leaves it pending; the page then
shows the decision, and so does the link opened later."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import axe_violations, shot
from tests.support.loopback import Loopback
from tests.ui.conftest import Owner
from tests.ui.space_api import automation_needing_approval, run_awaiting_approval, space_api, wait_run_status
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)

PHONE = {"width": 375, "height": 812}
TOUCH_TARGET_PX = 44


@pytest.fixture
def phone(browser: Any, ui_base: str) -> Iterator[Any]:
    context = browser.new_context(base_url=ui_base, viewport=PHONE, is_mobile=True, has_touch=True)
    context.set_default_timeout(15_000)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert not errors, f"the page raised errors: {errors}"


def _fits_the_screen(page: Any) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways ({width} px)"


def _touch_targets(page: Any, selector: str) -> None:
    controls = page.locator(selector)
    assert controls.count() > 0, selector
    for index in range(controls.count()):
        box = controls.nth(index).bounding_box()
        label = controls.nth(index).inner_text() or selector
        assert box["height"] >= TOUCH_TARGET_PX, (label, box)
        assert box["width"] >= TOUCH_TARGET_PX, (label, box)


def test_an_approval_is_opened_confirmed_and_decided_on_a_phone(
    phone: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    hits = f"phone-{uuid.uuid4().hex[:6]}"
    url = f"{loopback.url}/count/{hits}"
    _, run, approval = run_awaiting_approval(ui_base, owner, "Post the weekly totals", url)

    sign_in(phone, owner)
    phone.locator("#nav-approvals").tap()
    card = phone.locator(f".approval[data-approval='{approval['id']}']")
    card.wait_for()
    text = card.inner_text()
    assert "Post the weekly totals" in text, "the inbox names the automation"
    assert url in text, "the inbox shows the call's parameters"
    _fits_the_screen(phone)
    _touch_targets(phone, ".approval .open-approval, .approval .decision button")

    card.locator(".open-approval").tap()
    phone.wait_for_url(f"**/approvals/{approval['id']}")
    heading = phone.locator("main h1")
    heading.filter(has_text="http.request in Post the weekly totals").wait_for()
    facts = phone.locator(".approval-page .approval-facts").inner_text()
    for expected in ("Post the weekly totals", "call", "http.request", f"POST {url}", "an owner or an admin"):
        assert expected in facts, (expected, facts)
    assert "Expires" in facts
    assert "Requested" in facts
    _fits_the_screen(phone)
    _touch_targets(phone, ".approval-page .decision button, .back")
    assert not axe_violations(phone), axe_violations(phone)
    shot(phone, "approval-phone")

    # One tap opens the confirmation; Cancel leaves the call pending and nothing was sent.
    phone.get_by_role("button", name="Approve once").tap()
    dialog = phone.get_by_role("dialog", name="Approve this call?")
    dialog.wait_for()
    assert f"POST {url}" in dialog.inner_text()
    assert not axe_violations(phone), axe_violations(phone)
    shot(phone, "approval-phone-confirm")
    _touch_targets(phone, "dialog.confirm button")
    dialog.get_by_role("button", name="Cancel").tap()
    dialog.wait_for(state="detached")
    assert space_api(ui_base, owner, "GET", f"/approvals/{approval['id']}").json()["status"] == "pending"
    assert loopback.hits[hits] == 0

    phone.get_by_role("button", name="Approve once").tap()
    phone.get_by_role("dialog", name="Approve this call?").get_by_role("button", name="Yes, approve").tap()
    phone.locator(".approval-page .state[role='status']", has_text="Approved").wait_for()
    assert phone.locator(".approval-page .decision").count() == 0, "a decided call offers no decision"
    assert wait_run_status(ui_base, owner, run["id"], "succeeded")["status"] == "succeeded"
    assert loopback.hits[hits] == 1, "the approved call ran exactly once"

    # The link a notification carries opens the decided approval later, and the inbox is empty.
    phone.goto(f"/approvals/{approval['id']}")
    phone.locator(".approval-page .state", has_text="Approved").wait_for()
    phone.goto("/approvals")
    phone.wait_for_selector(".empty")


def test_an_unknown_approval_link_says_so_and_an_inbox_link_opens_the_approval(
    phone: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    sign_in(phone, owner)
    phone.goto(f"/approvals/{uuid.uuid4()}")
    phone.locator(".approval-page", has_text="does not exist in this space").wait_for()

    _, run, approval = run_awaiting_approval(
        ui_base, owner, "Older link", f"{loopback.url}/count/link-{uuid.uuid4().hex[:6]}"
    )
    phone.goto(f"/approvals?approval={approval['id']}")
    phone.wait_for_url(f"**/approvals/{approval['id']}")
    phone.locator("main h1", has_text="Older link").wait_for()
    space_api(ui_base, owner, "POST", f"/runs/{run['id']}/cancel")


def test_a_call_that_needs_two_approvers_shows_how_many_approved_and_the_rule_that_asked(
    phone: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    automation = automation_needing_approval(
        ui_base, owner, "Two approvers", f"{loopback.url}/count/two-{uuid.uuid4().hex[:6]}"
    )
    rules = [{"capability": "http.request", "mode": "require_approval", "approvals": 2}]
    modes = space_api(
        ui_base,
        owner,
        "PUT",
        f"/automations/{automation['id']}/action-modes",
        json={"modes": {}, "rules": rules},
    )
    assert modes.status_code == 200, modes.text
    run = space_api(
        ui_base, owner, "POST", f"/automations/{automation['id']}/runs", json={"inputs": {}}
    ).json()
    wait_run_status(ui_base, owner, run["id"], "awaiting_approval")
    [approval] = space_api(ui_base, owner, "GET", f"/approvals?run_id={run['id']}").json()["items"]
    first = space_api(ui_base, owner, "POST", f"/approvals/{approval['id']}/approve", json={"scope": "once"})
    assert (first.status_code, first.json()["status"]) == (200, "pending"), first.text

    sign_in(phone, owner)
    phone.goto(f"/approvals/{approval['id']}")
    so_far = phone.locator(".approvals-so-far")
    so_far.wait_for()
    assert so_far.inner_text().startswith("1 of 2"), so_far.inner_text()
    assert "(api)" in so_far.inner_text()
    phone.locator("dd", has_text="rule 1 of the automation's modes").wait_for()
    _fits_the_screen(phone)
    space_api(ui_base, owner, "POST", f"/runs/{run['id']}/cancel")
