"""Helpers of the governed-path tests: automations whose calls need approval, and the inbox."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from tests.support.approvals import set_modes
from tests.support.factories import Caller
from tests.support.loopback import Loopback
from tests.support.runs import definition, fire, http_step, wait_for


def name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


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


async def eventually(check: Any, timeout: float = 30) -> Any:
    """Poll an async check until it answers something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        found = await check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.1)
