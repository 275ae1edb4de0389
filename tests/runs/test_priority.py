"""Queued runs in priority order: set at fire, changed while queued, promotion by priority then age,
why and when each promotion happened, and no starvation behind a long line of blocked serial runs."""

from __future__ import annotations

import itertools
import uuid
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update

from app.definitions.run_states import RunStatus
from app.engine.claim_ports import Outcome
from app.persistence.base import utcnow
from app.persistence.models import Run
from tests.support import held_runs
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.runs import definition, get_run, http_step, stored_run, wait_for

SERIAL = definition(
    {"step_id": "quick", "action": "transform_data", "config": {"output": 1}},
    execution={"concurrency": "queue"},
)


async def _held(app: Any, owner: Caller, automation: dict[str, Any]) -> Run:
    """A run of the automation a worker holds (claimed, long lease): its serial line waits behind it."""
    now = utcnow()
    return await stored_run(
        app,
        owner,
        automation,
        "running",
        attempt=1,
        claimed_by="test-worker",
        lease_expires_at=now + timedelta(hours=1),
        started_at=now,
    )


async def _run_now(owner: Caller, automation_id: str, **body: Any) -> dict[str, Any]:
    response = await owner.request("POST", owner.space_path(f"/automations/{automation_id}/runs"), json=body)
    assert response.status_code == 202, response.text
    return response.json()


async def _queue(owner: Caller) -> list[str]:
    return [run["id"] for run in (await owner.request("GET", owner.space_path("/queue"))).json()["items"]]


async def _set(owner: Caller, run_id: str, priority: Any) -> Any:
    return await owner.request(
        "PUT", owner.space_path(f"/runs/{run_id}/priority"), json={"priority": priority}
    )


async def _retire(app: Any, automation_id: str) -> None:
    """End every run the test left behind, so no later promotion or worker meets them."""
    async with app.state.sessionmaker() as session:
        await session.execute(
            update(Run)
            .where(
                Run.automation_id == uuid.UUID(automation_id),
                Run.status.in_(["queued", "running", "pending"]),
            )
            .values(status=RunStatus.cancelled, finished_at=utcnow(), claimed_by=None)
        )
        await session.commit()


class TestPriorityOrder:
    async def test_the_queue_is_ordered_by_priority_then_age_and_promotes_so(
        self, app: Any, factory: Factory
    ) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation(SERIAL)
        blocker = await _held(app, owner, automation)
        low = await _run_now(owner, automation["id"])
        high = await _run_now(owner, automation["id"], priority=5)
        middle = await _run_now(owner, automation["id"], priority=1)
        assert [r["status"] for r in (low, high, middle)] == ["queued"] * 3
        assert (low["priority"], high["priority"], middle["priority"]) == (0, 5, 1)
        assert await _queue(owner) == [high["id"], middle["id"], low["id"]]

        # Changed while queued: the oldest run jumps the line.
        changed = await _set(owner, low["id"], 10)
        assert changed.status_code == 200, changed.text
        assert changed.json()["priority"] == 10
        assert await _queue(owner) == [low["id"], high["id"], middle["id"]]

        await held_runs.finish(app, blocker, Outcome("succeeded"))
        promoted = await get_run(owner, low["id"])
        assert promoted["status"] != "queued"
        assert promoted["promotion_reason"] == f"slot freed by run {blocker.id}"
        assert promoted["promoted_at"] is not None
        # A serial automation gets one run at a time: the others still wait, in order.
        assert await _queue(owner) == [high["id"], middle["id"]]

        # Once out of the queue, its place is settled.
        refused = await _set(owner, low["id"], 0)
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "run_not_queued"
        await _retire(app, automation["id"])

    async def test_a_paginated_queue_keeps_the_order(self, app: Any, factory: Factory) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation(SERIAL)
        await _held(app, owner, automation)
        made = [await _run_now(owner, automation["id"], priority=p) for p in (0, 3, 3, -2, 7)]
        expected = [made[4]["id"], made[1]["id"], made[2]["id"], made[0]["id"], made[3]["id"]]
        seen: list[str] = []
        cursor = None
        while True:
            params: dict[str, Any] = {"limit": 2, **({"cursor": cursor} if cursor else {})}
            page = (await owner.request("GET", owner.space_path("/queue"), params=params)).json()
            seen += [run["id"] for run in page["items"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert seen == expected
        await _retire(app, automation["id"])


class TestPriorityChangesRefused:
    async def test_bad_values_other_roles_and_other_spaces(self, app: Any, factory: Factory) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation(SERIAL)
        await _held(app, owner, automation)
        queued = await _run_now(owner, automation["id"])
        for bad in (1001, -1001, "high", None, 1.5):
            response = await _set(owner, queued["id"], bad)
            assert response.status_code == 422, (bad, response.text)
        missing = await owner.request("PUT", owner.space_path(f"/runs/{queued['id']}/priority"), json={})
        assert missing.status_code == 422
        member = await factory.member(owner)
        forbidden = await _set(member, queued["id"], 3)
        assert forbidden.status_code == 403
        assert forbidden.json()["error"]["code"] == "role_insufficient"
        admin = await factory.member(owner, role="admin")
        assert (await _set(admin, queued["id"], 3)).status_code == 200
        stranger = await factory.owner(space="Elsewhere")
        assert (await _set(stranger, queued["id"], 3)).status_code == 404
        assert (await _set(owner, str(uuid.uuid4()), 3)).status_code == 404
        for bad in (1001, "x"):
            fired = await owner.request(
                "POST", owner.space_path(f"/automations/{automation['id']}/runs"), json={"priority": bad}
            )
            assert fired.status_code == 422
        await _retire(app, automation["id"])


class TestStarvation:
    async def test_a_promotable_run_behind_over_a_hundred_blocked_ones_is_promoted(
        self, app: Any, factory: Factory
    ) -> None:
        owner = await factory.owner()
        busy = await owner.create_automation(SERIAL)
        other = await owner.create_automation(SERIAL)
        await _held(app, owner, busy)
        # 120 runs of a serial automation that has one under way: none of them can start.
        for _ in range(120):
            await stored_run(app, owner, busy, "queued", reason="waiting_for_previous_run")
        freeing = await _held(app, owner, other)
        behind = await stored_run(app, owner, other, "queued", reason="waiting_for_previous_run")

        await held_runs.finish(app, freeing, Outcome("succeeded"))
        promoted = await get_run(owner, str(behind.id))
        assert promoted["status"] != "queued"
        assert promoted["promotion_reason"] == f"slot freed by run {freeing.id}"
        queue = (await owner.request("GET", owner.space_path("/queue"), params={"limit": 200})).json()
        assert len(queue["items"]) == 120
        assert {run["automation_id"] for run in queue["items"]} == {busy["id"]}
        await _retire(app, busy["id"])
        await _retire(app, other["id"])


class TestOnTheStack:
    async def test_queued_runs_start_by_priority_and_say_what_freed_their_slot(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = f"prio-{uuid.uuid4().hex[:6]}"
        document = definition(
            http_step("slow", f"{loopback.url}/slow/{name}?seconds=1.5"), execution={"concurrency": "queue"}
        )
        automation = await owner.create_automation(document)
        first = await _run_now(owner, automation["id"])
        later = [await _run_now(owner, automation["id"], priority=p) for p in (0, 2, 1)]
        assert [r["status"] for r in later] == ["queued"] * 3
        runs = {r["id"]: await wait_for(owner, r["id"], timeout=60) for r in (first, *later)}
        assert {r["status"] for r in runs.values()} == {"succeeded"}
        order = sorted(runs.values(), key=lambda r: datetime.fromisoformat(r["started_at"]))
        assert [r["id"] for r in order] == [first["id"], later[1]["id"], later[2]["id"], later[0]["id"]]
        for previous, promoted in itertools.pairwise(order):
            assert promoted["promotion_reason"] == f"slot freed by run {previous['id']}"
        assert order[0]["promoted_at"] is None
