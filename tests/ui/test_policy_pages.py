"""Standing approvals on the automation page and the policy history in Settings, in Chromium.

"Approve and always allow" from the inbox shows as a grant with its origin (step, target, who, version)
on the automation page, where it is revoked; the approval settings changed in Settings show in the
policy history with who changed them and the value before and after.
"""

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


def test_an_always_approval_shows_its_origin_and_is_revoked_on_the_automation_page(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    hits = f"grant-{uuid.uuid4().hex[:6]}"
    url = f"{loopback.url}/count/{hits}"
    automation = automation_needing_approval(ui_base, owner, "Always here", url)
    run = space_api(
        ui_base, owner, "POST", f"/automations/{automation['id']}/runs", json={"inputs": {}}
    ).json()
    wait_run_status(ui_base, owner, run["id"], "awaiting_approval")

    sign_in(page, owner)
    page.click("#nav-approvals")
    card = page.locator(".approval", has_text="http.request")
    card.wait_for()
    card.get_by_role("button", name="Approve and always allow").click()
    page.get_by_role("dialog", name="Approve this call?").get_by_role("button", name="Yes, approve").click()
    page.wait_for_selector(".empty")
    wait_run_status(ui_base, owner, run["id"], "succeeded")

    page.goto(f"/automations/{automation['id']}")
    row = page.locator("#grants-box tr[data-grant]")
    row.wait_for()
    text = row.inner_text()
    assert f"POST {url}" in text, text
    assert "active" in text, text
    assert owner.email in text, "who granted it"
    assert not axe_violations(page), axe_violations(page)
    shot(page, "automation-standing-approvals")

    row.get_by_role("button", name=f"Revoke the standing approval of call to POST {url}").click()
    page.wait_for_selector("#grants-result .ok")
    page.wait_for_selector("#grants-box .empty")
    grants = space_api(ui_base, owner, "GET", f"/automations/{automation['id']}/approval-grants").json()
    assert grants["items"] == []


def test_a_settings_change_shows_in_the_policy_history(page: Any, owner: Owner, ui_base: str) -> None:
    space_api(
        ui_base,
        owner,
        "PUT",
        "/approval-settings",
        json={"approval_ttl_seconds": 600, "forbid_self_approval": True},
    )
    sign_in(page, owner)
    page.goto("/settings")
    entry = page.locator("#policy-history li[data-kind='approval_settings']")
    entry.wait_for()
    assert "Approval settings" in entry.inner_text()
    assert owner.email in entry.inner_text()
    entry.locator("summary").click()
    assert '"forbid_self_approval": true' in entry.inner_text()
    assert '"forbid_self_approval": false' in entry.inner_text(), "the value before"
    assert not axe_violations(page), axe_violations(page)
    shot(page, "settings-policy-history")
