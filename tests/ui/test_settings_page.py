"""Space settings in Chromium: a default action mode chosen there governs the next run (it waits for
approval, and its run page leads to the approval's own page); patterns; the approval settings saved from the
keyboard; a value the API refuses is shown, not lost."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.support.browser import axe_violations, shot
from tests.support.loopback import Loopback
from tests.ui.conftest import Owner
from tests.ui.space_api import space_api, wait_run_status
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)


def _open_settings(page: Any, owner: Owner) -> None:
    sign_in(page, owner)
    page.goto("/settings")
    page.wait_for_selector("form[aria-label='Space action modes'] select[data-mode-for='http.request']")
    page.wait_for_selector("#approval-ttl")


def test_a_space_mode_set_in_settings_makes_the_next_run_wait_for_approval(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    _open_settings(page, owner)
    assert not axe_violations(page), axe_violations(page)
    page.select_option("select[data-mode-for='http.request']", "require_approval")
    page.click("#save-modes")
    page.wait_for_selector("text=Action modes saved.")
    assert space_api(ui_base, owner, "GET", "/action-modes").json()["modes"] == {
        "http.request": "require_approval"
    }
    shot(page, "settings-modes")

    hits = f"settings-{uuid.uuid4().hex[:6]}"
    definition = {
        "schema_version": "1.0",
        "name": "Asks first",
        "plan": [
            {
                "step_id": "call",
                "action": "http_request",
                "config": {"method": "POST", "url": f"{loopback.url}/count/{hits}"},
            }
        ],
    }
    automation = space_api(ui_base, owner, "POST", "/automations", json={"definition": definition}).json()
    run = space_api(
        ui_base, owner, "POST", f"/automations/{automation['id']}/runs", json={"inputs": {}}
    ).json()
    waiting = wait_run_status(ui_base, owner, run["id"], "awaiting_approval")
    assert loopback.hits[hits] == 0
    (call,) = waiting["invocations"]
    assert (call["mode"], call["mode_source"]) == ("require_approval", "space_default")
    assert call["status"] == "pending"

    page.goto(f"/runs/{run['id']}")
    row = page.locator("table.invocations tr[data-status='pending']")
    row.wait_for()
    assert "approval pending" in row.inner_text()
    assert "space default" in row.inner_text()
    assert "expires" in row.inner_text(), "a pending call says how long it waits"
    assert not axe_violations(page), axe_violations(page)
    shot(page, "run-page-waiting")
    page.click(".waiting a")
    page.wait_for_url(f"**/approvals/{call['id']}")
    page.locator(".approval-page .state", has_text="Waiting for your decision").wait_for()
    assert "http.request" in page.locator("main h1").inner_text()
    assert not axe_violations(page), axe_violations(page)


def test_a_pattern_is_added_and_a_mode_is_unset_again(page: Any, owner: Owner, ui_base: str) -> None:
    space_api(ui_base, owner, "PUT", "/action-modes", json={"modes": {"http.request": "deny"}})
    _open_settings(page, owner)
    assert page.eval_on_selector("select[data-mode-for='http.request']", "el => el.value") == "deny"
    page.select_option("select[data-mode-for='http.request']", "")
    page.fill("#mode-pattern", "crm.*")
    page.select_option("#mode-pattern-value", "deny")
    page.click("#save-modes")
    page.wait_for_selector("select[data-mode-for='crm.*']")
    assert space_api(ui_base, owner, "GET", "/action-modes").json()["modes"] == {"crm.*": "deny"}
    assert page.eval_on_selector("select[data-mode-for='crm.*']", "el => el.value") == "deny"


def test_a_bad_pattern_is_refused_with_the_api_error_and_nothing_changes(
    page: Any, owner: Owner, ui_base: str
) -> None:
    _open_settings(page, owner)
    page.fill("#mode-pattern", "not a pattern!")
    page.select_option("#mode-pattern-value", "allow")
    page.click("#save-modes")
    alert = page.wait_for_selector("section[aria-labelledby='modes-title'] [role=alert]")
    assert "validation" in alert.inner_text() or "mode" in alert.inner_text(), alert.inner_text()
    assert space_api(ui_base, owner, "GET", "/action-modes").json()["modes"] == {}
    assert page.input_value("#mode-pattern") == "not a pattern!", "the typed value is kept"


def test_approval_settings_are_saved_from_the_keyboard(page: Any, owner: Owner, ui_base: str) -> None:
    _open_settings(page, owner)
    assert page.input_value("#approval-ttl") == str(24 * 60)
    page.focus("#approval-ttl")
    page.keyboard.press("Control+A")
    page.keyboard.type("90")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "forbid-self-approval"
    page.keyboard.press("Space")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "save-approval-settings"
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Approval settings saved.")
    saved = space_api(ui_base, owner, "GET", "/approval-settings").json()
    assert saved == {"approval_ttl_seconds": 5400, "forbid_self_approval": True}
    shot(page, "settings-approvals")

    page.reload()
    page.wait_for_selector("#approval-ttl")
    assert page.input_value("#approval-ttl") == "90"
    assert page.is_checked("#forbid-self-approval")


def test_a_ttl_the_api_refuses_is_shown_and_not_saved(page: Any, owner: Owner, ui_base: str) -> None:
    _open_settings(page, owner)
    # Past the form's own limits, as an older page or a crafted value would send it.
    page.eval_on_selector("#approval-ttl", "el => { el.removeAttribute('max'); el.value = '999999'; }")
    page.click("#save-approval-settings")
    page.wait_for_selector("section[aria-labelledby='approval-settings-title'] [role=alert]")
    alert = page.inner_text("section[aria-labelledby='approval-settings-title'] [role=alert]")
    assert "approval_ttl_seconds" in alert, alert
    assert space_api(ui_base, owner, "GET", "/approval-settings").json()["approval_ttl_seconds"] == 24 * 3600


def test_a_member_sees_the_settings_read_only(page: Any, owner: Owner, ui_base: str) -> None:
    space_api(ui_base, owner, "PUT", "/action-modes", json={"modes": {"http.request": "require_approval"}})
    email = f"member-{uuid.uuid4().hex[:8]}@example.test"
    member = space_api(ui_base, owner, "POST", "/members", json={"email": email, "role": "member"}).json()
    page.goto(member["invitation"]["url"])
    page.fill("#invitation-password", "a member's long passphrase")
    page.fill("#invitation-password-again", "a member's long passphrase")
    page.click("form[aria-label='Set your password'] button[type=submit]")
    page.wait_for_selector("main h1:text-is('Dashboard')")
    page.goto("/settings")
    select = page.wait_for_selector("select[data-mode-for='http.request']")
    assert select.input_value() == "require_approval", "members read the space's modes"
    assert select.is_disabled()
    assert page.is_disabled("#save-modes")
    assert page.is_disabled("#save-approval-settings")
    page.wait_for_selector("#save-slack-approvals:disabled")
    page.wait_for_selector("#save-email-approvals:disabled")
    assert page.is_disabled("#slack-channel")
    # Every section that members cannot change says so, once each has loaded (they load apart).
    page.wait_for_function("() => document.querySelectorAll('section .read-only').length >= 5")
    assert page.locator("section .read-only").count() == 5
    assert not axe_violations(page), axe_violations(page)
