"""In Chromium: the automation page says which MCP tool an automation is exposed as; the settings page
makes a token scoped to chosen MCP tools and shows what it is limited to."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.mcp_server.conftest import exposed
from tests.ui.conftest import Owner
from tests.ui.space_api import space_api
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)


def test_the_automation_page_shows_its_mcp_tool_and_settings_make_a_scoped_token(
    page: Any, owner: Owner, ui_base: str
) -> None:
    created = space_api(
        ui_base, owner, "POST", "/automations", json={"definition": exposed("greet_ui")}
    ).json()
    plain = space_api(ui_base, owner, "POST", "/automations", json={"definition": exposed("x", expose=None)})
    sign_in(page, owner)
    page.goto(f"/automations/{created['id']}")
    page.wait_for_selector("#mcp-tool code:text-is('greet_ui')")
    tool = page.inner_text("#mcp-tool")
    assert f"/api/v1/spaces/{owner.space_id}/mcp" in tool
    assert "listed once the automation is active" in tool

    page.goto(f"/automations/{plain.json()['id']}")
    page.wait_for_selector("#mcp-tool")
    assert page.inner_text("#mcp-tool").startswith("not exposed")

    page.goto("/settings")
    page.fill("#token-name", "desktop agent")
    page.select_option("#token-mcp-tools", created["id"])
    page.click("form[aria-label='Create a token'] button[type=submit]")
    page.wait_for_selector("#new-token")
    line = page.locator("li", has_text="desktop agent")
    line.wait_for()
    assert "only: MCP tools of 1 automation" in line.inner_text()
    tokens = httpx.get(
        f"{ui_base}/api/v1/tokens", headers={"Authorization": f"Bearer {owner.token}"}, timeout=30
    ).json()["items"]
    [agent] = [token for token in tokens if token["name"] == "desktop agent"]
    assert agent["scopes"] == {"mcp": {"automations": [created["id"]]}}


def test_settings_make_a_ci_token_for_this_spaces_automations_as_code(
    page: Any, owner: Owner, ui_base: str
) -> None:
    sign_in(page, owner)
    page.goto("/settings")
    page.wait_for_selector("#token-as-code")
    page.fill("#token-name", "ci apply")
    page.check("#token-as-code")
    page.click("form[aria-label='Create a token'] button[type=submit]")
    page.wait_for_selector("#new-token")
    line = page.locator("li", has_text="ci apply")
    line.wait_for()
    assert "only: export and apply of one space's automations" in line.inner_text()
    token = page.inner_text("#new-token")
    tokens = httpx.get(
        f"{ui_base}/api/v1/tokens", headers={"Authorization": f"Bearer {owner.token}"}, timeout=30
    ).json()["items"]
    [ci] = [made for made in tokens if made["name"] == "ci apply"]
    assert ci["scopes"] == {"as_code": {"space": owner.space_id}}
    # What it was made for works; anything else is refused.
    automations = f"{ui_base}/api/v1/spaces/{owner.space_id}/automations"
    headers = {"Authorization": f"Bearer {token}"}
    assert httpx.get(automations, headers=headers, timeout=30).status_code == 200
    secrets = httpx.get(f"{ui_base}/api/v1/spaces/{owner.space_id}/secrets", headers=headers, timeout=30)
    assert secrets.status_code == 403
