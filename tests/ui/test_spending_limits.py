"""The automation page in Chromium shows the spending limits in effect and where each comes from, and
warns of a stored agent HTTP grant that reaches any host."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.browser import axe_violations, shot
from tests.support.fake_llm import TEST_MODEL
from tests.ui.conftest import Owner
from tests.ui.test_automation_page import _create, _open

pytestmark = pytest.mark.timeout(300)

# The page asks for two previews at once (limits, action modes); on a busy machine they take a while.
PREVIEW_MS = 60_000


def _agent(execution: dict[str, Any]) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": f"Capped {len(execution)}",
        "plan": [
            {
                "step_id": "think",
                "action": "agent_task",
                "config": {"prompt": "Sum it up.", "model": TEST_MODEL, "tools": ["http.request"]},
            }
        ],
        "execution": execution,
    }


def test_the_operator_defaults_are_shown_as_such(page: Any, owner: Owner, ui_base: str) -> None:
    automation = _create(ui_base, owner, _agent({}))
    _open(page, owner, automation)
    daily = page.locator("#cap-daily")
    daily.filter(has_text="$1.00").wait_for(timeout=PREVIEW_MS)
    assert daily.get_attribute("data-source") == "operator_default"
    assert "installation default" in daily.inner_text()
    assert "at most $100.00" in daily.inner_text()
    tokens = page.locator("#cap-tokens")
    assert "200,000" in tokens.inner_text()
    assert "installation default" in tokens.inner_text()
    assert page.locator("#caps-warnings").count() == 0
    assert not axe_violations(page), axe_violations(page)


def test_the_automations_own_caps_and_an_any_host_grant(page: Any, owner: Owner, ui_base: str) -> None:
    execution = {
        "cost_cap_daily_usd": 0.25,
        "max_llm_tokens": 5000,
        "tool_grants": [{"capability": "http.request", "hosts": ["*"]}],
    }
    automation = _create(ui_base, owner, _agent(execution))
    _open(page, owner, automation)
    daily = page.locator("#cap-daily")
    daily.filter(has_text="$0.25").wait_for(timeout=PREVIEW_MS)
    assert daily.get_attribute("data-source") == "automation"
    assert "set by this automation" in daily.inner_text()
    tokens = page.locator("#cap-tokens")
    assert "5,000" in tokens.inner_text()
    assert tokens.get_attribute("data-source") == "automation"
    warning = page.locator("#caps-warnings li[data-code='grant_any_host']")
    assert "/execution/tool_grants/0/hosts" in warning.inner_text()
    assert not axe_violations(page), axe_violations(page)
    shot(page, "automation-spending-limits")
