"""Input defaults on the Settings page in Chromium: an admin sets one (plain text or JSON), the next
run of an automation whose input says `$space_default` takes it and its run page says who it ran as; a
secret-looking value is refused and shown, not saved; a member reads them without controls."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.support.browser import axe_violations, shot
from tests.ui.conftest import Owner
from tests.ui.space_api import space_api, wait_run_status
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)

SECTION = "section[aria-labelledby='input-defaults-title']"


def _open_settings(page: Any, owner: Owner) -> None:
    sign_in(page, owner)
    page.goto("/settings")
    page.wait_for_selector("#input-default-name")


def _set(page: Any, name: str, value: str) -> None:
    page.fill("#input-default-name", name)
    page.fill("#input-default-value", value)
    page.click("#save-input-default")


def test_a_default_set_in_settings_reaches_the_next_run(page: Any, owner: Owner, ui_base: str) -> None:
    _open_settings(page, owner)
    assert page.locator(f"{SECTION} .read-only").count() == 0, "an owner may change them"
    _set(page, "channel", "C0123")
    page.wait_for_selector("text=Input default channel saved.")
    _set(page, "tags", '["rivals", "peers"]')
    page.wait_for_selector(f"{SECTION} tr[data-default='tags']")
    items = space_api(ui_base, owner, "GET", "/input-defaults").json()["items"]
    assert {item["name"]: item["value"] for item in items} == {
        "channel": "C0123",
        "tags": ["rivals", "peers"],
    }
    assert '"C0123"' in page.inner_text(f"{SECTION} tr[data-default='channel']")
    assert not axe_violations(page), axe_violations(page)
    shot(page, "settings-input-defaults")

    definition = {
        "schema_version": "1.0",
        "name": f"Uses the space channel {uuid.uuid4().hex[:6]}",
        "inputs": {
            "schema": {
                "type": "object",
                "required": ["channel"],
                "properties": {"channel": {"type": "string", "default": "$space_default"}},
            }
        },
        "plan": [
            {"step_id": "echo", "action": "transform_data", "config": {"output": "{{ inputs.channel }}"}}
        ],
    }
    automation = space_api(ui_base, owner, "POST", "/automations", json={"definition": definition}).json()
    assert automation["warnings"] == []
    run = space_api(
        ui_base, owner, "POST", f"/automations/{automation['id']}/runs", json={"inputs": {}}
    ).json()
    done = wait_run_status(ui_base, owner, run["id"], "succeeded")
    assert done["steps"][0]["output"] == "C0123"
    page.goto(f"/runs/{run['id']}")
    ran_as = page.wait_for_selector("#ran-as")
    assert done["ran_as"]["email"] == owner.email
    assert owner.email in ran_as.inner_text()

    page.goto("/settings")
    page.click(f"{SECTION} button[aria-label='Remove the default channel']")
    page.wait_for_selector("text=Input default channel removed.")
    names = [item["name"] for item in space_api(ui_base, owner, "GET", "/input-defaults").json()["items"]]
    assert names == ["tags"]


def test_a_secret_looking_value_is_refused_and_shown(page: Any, owner: Owner, ui_base: str) -> None:
    _open_settings(page, owner)
    _set(page, "token", '{"$secret": "slack_bot_token"}')
    alert = page.wait_for_selector(f"{SECTION} [role=alert]")
    assert "secret_not_allowed" in alert.inner_text(), alert.inner_text()
    assert page.input_value("#input-default-name") == "token", "the typed values are kept"
    _set(page, "has space", "x")
    page.wait_for_selector(f"{SECTION} [role=alert]:has-text('invalid_default_name')")
    assert space_api(ui_base, owner, "GET", "/input-defaults").json()["items"] == []


def test_a_member_reads_the_defaults_without_controls(page: Any, owner: Owner, ui_base: str) -> None:
    space_api(ui_base, owner, "PUT", "/input-defaults/team", json={"value": "ops"})
    email = f"member-{uuid.uuid4().hex[:8]}@example.test"
    member = space_api(ui_base, owner, "POST", "/members", json={"email": email, "role": "member"}).json()
    page.goto(member["invitation"]["url"])
    page.fill("#invitation-password", "a member's long passphrase")
    page.fill("#invitation-password-again", "a member's long passphrase")
    page.click("form[aria-label='Set your password'] button[type=submit]")
    page.wait_for_selector("main h1:text-is('Dashboard')")
    page.goto("/settings")
    row = page.wait_for_selector(f"{SECTION} tr[data-default='team']")
    assert '"ops"' in row.inner_text()
    assert page.locator(f"{SECTION} .read-only").count() == 1
    assert page.is_disabled("#save-input-default")
    assert page.is_disabled(f"{SECTION} button[aria-label='Remove the default team']")
    assert not axe_violations(page), axe_violations(page)
