"""Invitations and token lifetimes in Chromium: the admin who adds a member is shown a link, not a
token; the invited person sets a password from it and is signed in, once; tokens are made with an
expiry chosen from the form, and only an admin's service token never expires."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.support.browser import axe_violations, shot
from tests.ui.conftest import Owner
from tests.ui.space_api import space_api
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)
JOINER_PASSWORD = "the joiner's own passphrase"


def _members_form(page: Any, owner: Owner) -> None:
    sign_in(page, owner)
    page.goto("/settings")
    page.wait_for_selector("form[aria-label='Add a member']")


def test_the_admin_hands_over_a_link_that_sets_the_members_password_once(
    page: Any, owner: Owner, ui_base: str, browser: Any
) -> None:
    _members_form(page, owner)
    email = f"joiner-{uuid.uuid4().hex[:6]}@example.test"
    page.fill("#member-email", email)
    page.click("form[aria-label='Add a member'] button[type=submit]")
    link = page.wait_for_selector("#invitation-link").inner_text()
    assert link.startswith(f"{ui_base}/invitation#ainv_"), link
    members = page.inner_text("section[aria-labelledby='members-title']")
    assert "aut_" not in members, "no API token of the member is shown"
    shot(page, "settings-invitation")

    joiner = browser.new_context(base_url=ui_base, viewport={"width": 1280, "height": 900})
    joiner.set_default_timeout(15_000)
    invited = joiner.new_page()
    try:
        invited.goto(link)
        invited.wait_for_selector("#invitation-password")
        assert "#" not in invited.url, "the secret leaves the address bar once read"
        assert not axe_violations(invited), axe_violations(invited)
        shot(invited, "invitation")
        invited.fill("#invitation-password", "too short")
        invited.fill("#invitation-password-again", "too short")
        invited.eval_on_selector_all(
            "input[minlength]", "els => els.forEach(e => e.removeAttribute('minlength'))"
        )
        invited.click("form[aria-label='Set your password'] button[type=submit]")
        alert = invited.wait_for_selector("[role='alert']")
        assert "weak_password" in alert.inner_text()
        invited.reload()
        invited.fill("#invitation-password", JOINER_PASSWORD)
        invited.fill("#invitation-password-again", JOINER_PASSWORD)
        invited.click("form[aria-label='Set your password'] button[type=submit]")
        invited.wait_for_selector("main h1:text-is('Dashboard')")
        assert invited.evaluate("sessionStorage.getItem('automations.invitation')") is None

        invited.goto(link)
        invited.fill("#invitation-password", "another long passphrase")
        invited.fill("#invitation-password-again", "another long passphrase")
        invited.click("form[aria-label='Set your password'] button[type=submit]")
        used = invited.wait_for_selector("[role='alert']")
        assert "invalid_invitation" in used.inner_text(), "the link works once"
    finally:
        joiner.close()
    signed = httpx.post(f"{ui_base}/api/v1/auth/sessions", json={"email": email, "password": JOINER_PASSWORD})
    assert signed.status_code == 201


def test_a_link_without_an_invitation_says_so(page: Any) -> None:
    page.goto("/invitation")
    alert = page.wait_for_selector("[role='alert']")
    assert "holds no invitation" in alert.inner_text()
    assert page.locator("#invitation-password").count() == 0


def test_tokens_are_made_with_a_chosen_expiry_and_a_service_token_says_it_never_expires(
    page: Any, owner: Owner, ui_base: str
) -> None:
    sign_in(page, owner)
    page.goto("/settings")
    page.wait_for_selector("#token-lifetime")
    assert page.input_value("#token-lifetime") == "90"
    page.fill("#token-name", "monthly report")
    page.select_option("#token-lifetime", "30")
    page.click("form[aria-label='Create a token'] button[type=submit]")
    page.wait_for_selector("#new-token")
    assert "expires" in page.inner_text("section[aria-labelledby='tokens-title'] .secret")

    page.fill("#token-name", "backup job")
    page.select_option("#token-lifetime", "never")
    page.click("form[aria-label='Create a token'] button[type=submit]")
    page.locator("section[aria-labelledby='tokens-title'] .secret", has_text="never expires").wait_for()
    row = page.locator("section[aria-labelledby='tokens-title'] li", has_text="backup job")
    assert "service token" in row.inner_text()
    assert "never expires" in row.inner_text()
    assert not axe_violations(page), axe_violations(page)
    shot(page, "settings-tokens")

    tokens = httpx.get(f"{ui_base}/api/v1/tokens", headers={"Authorization": f"Bearer {owner.token}"}).json()[
        "items"
    ]
    made = {t["name"]: t for t in tokens}
    assert made["backup job"]["kind"] == "service"
    assert made["backup job"]["expires_at"] is None
    assert made["monthly report"]["expires_at"] is not None
    assert space_api(ui_base, owner, "GET", "").status_code == 200
