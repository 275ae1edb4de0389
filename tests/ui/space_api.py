"""The browser tests' direct calls to the API, as a space's owner: to set a scene or check its outcome."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx

from tests.ui.conftest import Owner

# The API loads its model client on the first model call: seconds of CPU, many more on a busy machine.
FIRST_MODEL_ANSWER_MS = 90_000

TERMINAL = {"succeeded", "failed", "cancelled", "timed_out", "dropped"}


def space_api(
    ui_base: str,
    owner: Owner,
    method: str,
    path: str,
    *,
    check: bool = True,
    timeout: float = 30,
    **kwargs: Any,
) -> httpx.Response:
    """`method` on the owner's space's `path`; with `check`, an error status fails the test."""
    response = httpx.request(
        method,
        f"{ui_base}/api/v1/spaces/{owner.space_id}{path}",
        headers={"Authorization": f"Bearer {owner.token}"},
        timeout=timeout,
        **kwargs,
    )
    if check:
        assert response.status_code < 400, response.text
    return response


def new_member_token(ui_base: str, owner: Owner, role: str = "member") -> str:
    """A new member added by the owner who accepts the invitation (as from its link): their sign-in."""
    email = f"{role}-{uuid.uuid4().hex[:6]}@example.test"
    added = space_api(ui_base, owner, "POST", "/members", json={"email": email, "role": role}).json()
    accepted = httpx.post(
        f"{ui_base}/api/v1/invitations/accept",
        json={"token": added["invitation"]["token"], "password": "a member's long passphrase"},
    )
    assert accepted.status_code == 201, accepted.text
    token: str = accepted.json()["token"]
    return token


def wait_run_status(
    ui_base: str, owner: Owner, run_id: str, wanted: str, timeout: float = 90
) -> dict[str, Any]:
    """Poll the run until it is `wanted`; a terminal status other than that fails at once."""
    deadline = time.monotonic() + timeout
    while True:
        run: dict[str, Any] = space_api(ui_base, owner, "GET", f"/runs/{run_id}").json()
        if run["status"] == wanted:
            return run
        assert run["status"] not in TERMINAL - {wanted}, run
        assert time.monotonic() < deadline, f"run stayed {run['status']}"
        time.sleep(0.1)


def automation_needing_approval(
    ui_base: str, owner: Owner, name: str, url: str, execution: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Create an automation whose one step POSTs to `url` and waits for a human to approve the call."""
    definition: dict[str, Any] = {
        "schema_version": "1.0",
        "name": name,
        "plan": [{"step_id": "call", "action": "http_request", "config": {"method": "POST", "url": url}}],
    }
    if execution is not None:
        definition["execution"] = execution
    automation: dict[str, Any] = space_api(
        ui_base, owner, "POST", "/automations", json={"definition": definition}
    ).json()
    space_api(
        ui_base,
        owner,
        "PUT",
        f"/automations/{automation['id']}/action-modes",
        json={"modes": {"http.request": "require_approval"}},
    )
    return automation


def run_awaiting_approval(
    ui_base: str, owner: Owner, name: str, url: str
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A new automation whose call to `url` needs approval, run once: the automation, the run and the
    run's pending approval, once the run waits for it."""
    automation = automation_needing_approval(ui_base, owner, name, url)
    run: dict[str, Any] = space_api(
        ui_base, owner, "POST", f"/automations/{automation['id']}/runs", json={"inputs": {}}
    ).json()
    wait_run_status(ui_base, owner, run["id"], "awaiting_approval")
    [approval] = space_api(ui_base, owner, "GET", f"/approvals?run_id={run['id']}").json()["items"]
    return automation, run, approval
