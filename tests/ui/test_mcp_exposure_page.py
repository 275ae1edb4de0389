"""In Chromium: the automation page says which MCP tool an automation is exposed as, and the settings
page shows what a scoped token is limited to."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.mcp_server.conftest import exposed
from tests.ui.conftest import Owner
from tests.ui.space_api import space_api
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)


def test_the_automation_page_shows_its_mcp_tool_and_settings_show_a_tokens_scope(
    page: Any, owner: Owner, ui_base: str
) -> None:
    created = space_api(
        ui_base, owner, "POST", "/automations", json={"definition": exposed("greet_ui")}
    ).json()
    plain = space_api(ui_base, owner, "POST", "/automations", json={"definition": exposed("x", expose=None)})
    made = httpx.post(
        f"{ui_base}/api/v1/tokens",
        headers={"Authorization": f"Bearer {owner.token}"},
        json={"name": "desktop agent", "scopes": {"mcp": {"automations": [created["id"]]}}},
        timeout=30,
    )
    assert made.status_code == 201, made.text

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
    line = page.locator("li", has_text="desktop agent")
    line.wait_for()
    assert "only: MCP tools of 1 automation" in line.inner_text()
