"""Approvals and action modes through the API: set modes, read the inbox, decide."""

from __future__ import annotations

from typing import Any

from app.registry.ports import InvocationRecord
from tests.support.factories import Caller


async def set_modes(caller: Caller, modes: dict[str, str], automation_id: str | None = None) -> None:
    path = f"/automations/{automation_id}/action-modes" if automation_id else "/action-modes"
    response = await caller.request("PUT", caller.space_path(path), json={"modes": modes})
    assert response.status_code == 200, response.text


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


def pending_call(call_key: str, **columns: Any) -> InvocationRecord:
    """A call that asks for approval, as the governed pipeline hands it to the invocation log."""
    values: dict[str, Any] = {
        "step_id": "step",
        "capability": "crm.note",
        "tier": "native",
        "risk": "write",
        "destructive": False,
        "chosen_by": "agent",
        "mode": "require_approval",
        "mode_source": "inferred_default",
        "params": {},
        "status": "pending",
    }
    values.update(columns)
    return InvocationRecord(call_key=call_key, **values)
