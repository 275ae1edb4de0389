"""The approvals inbox in Chromium: a run that waits for a human shows there with its call, the badge
counts it, Approve once sends the call exactly once and the run finishes."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx
import pytest

from tests.support.browser import axe_violations, shot
from tests.support.loopback import Loopback
from tests.ui.conftest import Owner
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)


def _api(ui_base: str, owner: Owner, method: str, path: str, **kwargs: Any) -> httpx.Response:
    response = httpx.request(
        method,
        f"{ui_base}/api/v1/spaces/{owner.space_id}{path}",
        headers={"Authorization": f"Bearer {owner.token}"},
        timeout=30,
        **kwargs,
    )
    assert response.status_code < 400, response.text
    return response


def _run_status(ui_base: str, owner: Owner, run_id: str, wanted: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        run: dict[str, Any] = _api(ui_base, owner, "GET", f"/runs/{run_id}").json()
        if run["status"] == wanted:
            return run
        assert time.monotonic() < deadline, f"run stayed {run['status']}"
        time.sleep(0.3)


def test_a_waiting_run_is_approved_in_the_inbox_and_finishes(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    hits = f"inbox-{uuid.uuid4().hex[:6]}"
    definition = {
        "schema_version": "1.0",
        "name": "Needs a yes",
        "plan": [
            {
                "step_id": "call",
                "action": "http_request",
                "config": {"method": "POST", "url": f"{loopback.url}/count/{hits}"},
            }
        ],
    }
    automation = _api(ui_base, owner, "POST", "/automations", json={"definition": definition}).json()
    _api(
        ui_base,
        owner,
        "PUT",
        f"/automations/{automation['id']}/action-modes",
        json={"modes": {"http.request": "require_approval"}},
    )
    run = _api(ui_base, owner, "POST", f"/automations/{automation['id']}/runs", json={"inputs": {}}).json()
    _run_status(ui_base, owner, run["id"], "awaiting_approval")
    assert loopback.hits[hits] == 0

    sign_in(page, owner)
    page.wait_for_selector("#approval-count:text-is('1')")
    page.click("#nav-approvals")
    page.wait_for_selector("main h1:text-is('Approvals')")
    card = page.locator(".approval", has_text="http.request")
    card.wait_for()
    assert f"/count/{hits}" in card.inner_text(), "the inbox shows the call's parameters"
    assert not axe_violations(page), axe_violations(page)
    shot(page, "approvals-pending")

    card.get_by_role("button", name="Approve once").click()
    page.wait_for_selector(".empty")
    done = _run_status(ui_base, owner, run["id"], "succeeded")
    assert done["status"] == "succeeded"
    assert loopback.hits[hits] == 1, "the approved call ran exactly once"
    page.wait_for_selector("#approval-count", state="hidden")
    shot(page, "approvals-empty")
