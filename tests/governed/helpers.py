"""Helpers of the governed-path tests: automations whose calls need approval, and the inbox."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from tests.support.factories import Caller
from tests.support.loopback import Loopback
from tests.support.runs import definition, fire, http_step, wait_for


def name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


async def set_modes(caller: Caller, modes: dict[str, str], automation_id: str | None = None) -> None:
    path = f"/automations/{automation_id}/action-modes" if automation_id else "/action-modes"
    response = await caller.request("PUT", caller.space_path(path), json={"modes": modes})
    assert response.status_code == 200, response.text


async def waiting_run(
    caller: Caller, loopback: Loopback, hits: str, **changes: Any
) -> tuple[str, dict[str, Any]]:
    """An active automation whose one HTTP step needs approval, fired: (automation id, the waiting run)."""
    automation = await caller.create_automation(
        definition(http_step("call", f"{loopback.url}/count/{hits}"), **changes)
    )
    await set_modes(caller, {"http.request": "require_approval"}, automation["id"])
    await caller.request("POST", caller.space_path(f"/automations/{automation['id']}/activate"))
    run = await fire(caller, automation["id"])
    return automation["id"], await wait_for(caller, run["id"], {"awaiting_approval"}, timeout=60)


async def pending_approvals(caller: Caller, **params: str) -> list[dict[str, Any]]:
    response = await caller.request("GET", caller.space_path("/approvals"), params=params)
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items


async def the_approval(caller: Caller, run_id: str) -> dict[str, Any]:
    [approval] = await pending_approvals(caller, run_id=run_id)
    return approval


async def decide(caller: Caller, approval_id: str, verb: str, body: dict[str, Any] | None = None) -> Any:
    return await caller.request(
        "POST", caller.space_path(f"/approvals/{approval_id}/{verb}"), json=body or {}
    )


async def eventually(check: Any, timeout: float = 30) -> Any:
    """Poll an async check until it answers something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        found = await check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.2)
