"""Approvals outside the inbox, in Chromium: the Settings sections for Slack and email, the page an
emailed link opens (which decides only on a click, once), and the automation's rules over arguments."""

from __future__ import annotations

import re
import time
import uuid
from typing import Any

import pytest

from tests.support.browser import axe_violations, create_admin, shot
from tests.support.loopback import Loopback
from tests.support.smtp_server import SmtpServer
from tests.ui.conftest import PASSWORD, Owner
from tests.ui.space_api import automation_needing_approval, space_api, wait_run_status
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)
# The link starts with AUTOMATIONS_PUBLIC_URL, unset here: a path on this server.
LINK = re.compile(r"(\S*/approval-email#aapr_[A-Za-z0-9_-]+)")


@pytest.fixture
def mailable_owner(ui_env: dict[str, str], ui_base: str) -> Owner:
    """An owner whose address mail may go to (the `.test` names are reserved, and refused as such)."""
    email = f"ui-{uuid.uuid4().hex[:8]}@example.com"
    made = create_admin(ui_env, email, PASSWORD, ui_base)
    return Owner(email=email, password=PASSWORD, space_id=made["space_id"], token=made["token"])


def _link_for(smtp_server: SmtpServer, email: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for mail in smtp_server.accepted:
            if email in mail.recipients:
                found = LINK.search(mail.message.get_content())
                if found:
                    return found.group(1)
        time.sleep(0.3)
    raise AssertionError(f"no approval email reached {email}")


def test_an_emailed_link_shows_the_call_and_decides_once_on_a_click(
    page: Any, browser: Any, mailable_owner: Owner, ui_base: str, loopback: Loopback, smtp_server: SmtpServer
) -> None:
    owner = mailable_owner
    sign_in(page, owner)
    page.goto("/settings")
    page.wait_for_selector("#email-approvals")
    page.check("#email-approvals")
    page.click("#save-email-approvals")
    page.wait_for_selector("section[aria-labelledby='email-approvals-title'] .ok")
    assert not axe_violations(page), axe_violations(page)
    shot(page, "settings-approval-channels")

    hits = f"email-ui-{uuid.uuid4().hex[:6]}"
    automation = automation_needing_approval(
        ui_base, owner, "Emailed approval", f"{loopback.url}/count/{hits}"
    )
    space_api(ui_base, owner, "POST", f"/automations/{automation['id']}/activate")
    run = space_api(ui_base, owner, "POST", f"/automations/{automation['id']}/runs").json()
    wait_run_status(ui_base, owner, run["id"], "awaiting_approval")
    link = _link_for(smtp_server, owner.email)
    assert link.startswith("/approval-email#"), link

    reader = browser.new_context(base_url=ui_base, viewport={"width": 1280, "height": 900})
    reader.set_default_timeout(15_000)
    opened = reader.new_page()
    try:
        opened.goto(link)
        opened.wait_for_selector("#approval-email-approve")
        assert "#" not in opened.url, "the token leaves the address bar once read"
        assert "http.request" in opened.inner_text("#approval-email-call")
        assert not axe_violations(opened), axe_violations(opened)
        shot(opened, "approval-email")
        assert space_api(ui_base, owner, "GET", f"/runs/{run['id']}").json()["status"] == "awaiting_approval"
        assert loopback.hits[hits] == 0, "opening the link decided nothing"

        opened.click("#approval-email-approve")
        done = opened.wait_for_selector("#approval-email-done").inner_text()
        assert "approved" in done
        wait_run_status(ui_base, owner, run["id"], "succeeded")
        assert loopback.hits[hits] == 1

        opened.goto(link)
        refused = opened.wait_for_selector("[role='alert']").inner_text()
        assert "approval_link_used" in refused, "the link works once"
    finally:
        reader.close()


def test_a_page_without_a_link_says_so(page: Any) -> None:
    page.goto("/approval-email")
    alert = page.wait_for_selector("[role='alert']")
    assert "holds no approval" in alert.inner_text()


def test_slack_settings_name_secrets_and_show_the_interactivity_url(
    page: Any, owner: Owner, ui_base: str
) -> None:
    for name, value in (("slack_bot", "xoxb-good"), ("slack_signing", "signing")):
        space_api(ui_base, owner, "PUT", f"/secrets/{name}", json={"value": value})
    sign_in(page, owner)
    page.goto("/settings")
    page.wait_for_selector("#slack-channel")
    url = page.inner_text("#slack-interactivity-url")
    assert url == f"{ui_base}/api/v1/integrations/slack/interactions/{owner.space_id}"
    page.fill("#slack-channel", "general")
    page.select_option("#slack-bot-token-secret", "slack_bot")
    page.select_option("#slack-signing-secret", "slack_signing")
    page.click("#save-slack-approvals")
    refused = page.wait_for_selector(
        "section[aria-labelledby='slack-approvals-title'] [role='alert']"
    ).inner_text()
    assert "/channel" in refused
    page.fill("#slack-channel", "#approvals")
    page.click("#save-slack-approvals")
    page.wait_for_selector("#slack-status:has-text('#approvals')")
    shown = space_api(ui_base, owner, "GET", "/slack-approvals").json()
    assert (shown["enabled"], shown["channel"], shown["bot_token_secret"]) == (
        True,
        "#approvals",
        "slack_bot",
    )


def test_the_automation_page_shows_and_saves_rules_over_arguments(
    page: Any, owner: Owner, ui_base: str
) -> None:
    automation = automation_needing_approval(ui_base, owner, "Ruled", "https://example.com/hook")
    space_api(
        ui_base,
        owner,
        "PUT",
        "/action-modes",
        json={"modes": {}, "rules": [{"capability": "http.*", "mode": "deny"}]},
    )
    sign_in(page, owner)
    page.goto(f"/automations/{automation['id']}")
    page.wait_for_selector("#mode-rules")
    assert "http.*" in page.inner_text("#space-rules")
    rule = '[{"capability": "http.request", "mode": "require_approval", "approvals": 2}]'
    page.fill("#mode-rules", rule)
    page.click("#save-mode-rules")
    page.wait_for_selector("table#automation-rules")
    assert "http.request" in page.inner_text("#automation-rules")
    effective = page.wait_for_selector("tr[data-capability='http.request'] td.effective:has-text('rule #1')")
    assert "2 approvers" in effective.inner_text()
    saved = space_api(ui_base, owner, "GET", f"/automations/{automation['id']}/action-modes").json()
    assert saved["rules"] == [{"capability": "http.request", "mode": "require_approval", "approvals": 2}]
    page.fill("#mode-rules", '[{"capability": "Bad", "mode": "maybe"}]')
    page.click("#save-mode-rules")
    refused = page.wait_for_selector("#modes-result [role='alert'], #modes-result .error").inner_text()
    assert "/rules/0/capability" in refused
