"""A secret's hosts on the Connections page, in Chromium against the real stack: an unbound secret warns
that it may go to any public host and offers the host of its first automation; the admin confirms it;
a bad host is refused beside the row; axe finds no serious or critical violation."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.browser import axe_violations, shot
from tests.ui.conftest import Owner
from tests.ui.space_api import space_api
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)

USES_THE_SECRET = {
    "schema_version": "1.0",
    "name": "Sends the CRM token",
    "plan": [
        {
            "step_id": "call",
            "action": "http_request",
            "config": {
                "url": "https://api.crm.example/notes",
                "headers": {"X-Api-Key": {"$secret": "crm_key"}},
            },
        }
    ],
}


def test_an_unbound_secret_warns_and_the_admin_binds_it(page: Any, owner: Owner, ui_base: str) -> None:
    space_api(ui_base, owner, "PUT", "/secrets/crm_key", json={"value": "never-shown-123"})
    space_api(ui_base, owner, "POST", "/automations", json={"definition": USES_THE_SECRET})
    sign_in(page, owner)
    page.goto("/connections")
    page.wait_for_selector(".loading", state="detached")
    row = page.locator("#section-secrets li[data-secret=crm_key]")
    warning = row.locator(".unbound")
    warning.wait_for()
    assert "Any public host" in warning.inner_text()
    assert "never-shown-123" not in page.content()
    violations = axe_violations(page)
    assert not violations, violations
    shot(page, "secrets-unbound")

    row.get_by_role("button", name="Bind to api.crm.example (secret crm_key)").click()
    page.locator("#section-secrets li[data-secret=crm_key] .bound", has_text="api.crm.example").wait_for()
    assert space_api(ui_base, owner, "GET", "/secrets/crm_key").json()["hosts"] == ["api.crm.example"]

    row = page.locator("#section-secrets li[data-secret=crm_key]")
    row.get_by_role("textbox", name="Hosts of secret crm_key").fill("api.crm.example, https://evil.example/")
    row.get_by_role("button", name="Save hosts of secret crm_key").click()
    refused = row.locator(".error[role=alert]")
    refused.wait_for()
    assert "/hosts/1" in refused.inner_text() or "bare host name" in refused.inner_text()
    assert space_api(ui_base, owner, "GET", "/secrets/crm_key").json()["hosts"] == ["api.crm.example"]


def test_a_secret_is_set_with_its_hosts(page: Any, owner: Owner, ui_base: str) -> None:
    sign_in(page, owner)
    page.goto("/connections")
    page.wait_for_selector(".loading", state="detached")
    page.fill("#secret-name", "slack_token")
    page.fill("#secret-value", "xoxb-never-shown")
    page.fill("#secret-hosts", "slack.com, *.slack.com")
    page.click("form[aria-label='Set a secret'] button[type=submit]")
    page.locator("#section-secrets li[data-secret=slack_token] .bound", has_text="*.slack.com").wait_for()
    assert space_api(ui_base, owner, "GET", "/secrets/slack_token").json()["hosts"] == [
        "slack.com",
        "*.slack.com",
    ]
