"""Runs act as an identity: whoever started one by hand, else the automation's creator; the run's
record names it (`ran_as`), and templates read it as `run.creator_id`."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.support.factories import Caller, Factory
from tests.support.runs import wait_for

CREATOR_ECHO: dict[str, Any] = {
    "schema_version": "1.0",
    "name": "Who am I",
    "triggers": [
        {"type": "webhook", "config": {}},
        {"type": "event", "config": {"event_type": "crm.deal_won"}},
    ],
    "plan": [{"step_id": "who", "action": "transform_data", "config": {"output": "{{ run.creator_id }}"}}],
}


async def _active(caller: Caller) -> dict[str, Any]:
    automation = await caller.create_automation(CREATOR_ECHO)
    await caller.request("POST", caller.space_path(f"/automations/{automation['id']}/activate"))
    return automation


async def _email(caller: Caller) -> str:
    me = await caller.request("GET", "/api/v1/me")
    assert me.status_code == 200, me.text
    email: str = me.json()["email"]
    return email


class TestRanAs:
    async def test_a_webhook_run_acts_as_the_automation_s_creator(self, factory: Factory, stack: Any) -> None:
        owner = await factory.owner()
        automation = await _active(owner)
        token = next(t["token"] for t in automation["triggers"] if t["type"] == "webhook")
        fired = await owner.client.post(
            f"/api/v1/automations/{automation['id']}/fire",
            json={},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert fired.status_code == 202, fired.text
        run = await wait_for(owner, fired.json()["run_id"])
        assert run["status"] == "succeeded", run
        assert run["steps"][0]["output"] == owner.user_id, "run.creator_id is the automation's creator"
        assert run["ran_as"] == {"user_id": owner.user_id, "email": await _email(owner), "name": None}

    async def test_an_event_run_acts_as_the_creator_and_lists_say_so_too(
        self, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        member = await factory.member(owner)
        automation = await _active(owner)
        # A member's event starts the run; the run still acts as the automation's creator.
        published = await member.request(
            "POST", member.space_path("/events"), json={"event_type": "crm.deal_won", "payload": {}}
        )
        assert published.status_code == 202, published.text
        run_id = await _first_run(member, automation["id"])
        run = await wait_for(member, run_id)
        assert run["trigger_type"] == "event"
        assert run["steps"][0]["output"] == owner.user_id
        assert run["ran_as"]["user_id"] == owner.user_id, "space members see who a run acted as"
        listed = await member.request(
            "GET", member.space_path("/runs"), params={"automation_id": automation["id"]}
        )
        assert [item["ran_as"]["user_id"] for item in listed.json()["items"]] == [owner.user_id]

    async def test_a_run_started_by_hand_acts_as_who_started_it(self, factory: Factory, stack: Any) -> None:
        owner = await factory.owner()
        member = await factory.member(owner)
        automation = await _active(owner)
        started = await member.request(
            "POST", member.space_path(f"/automations/{automation['id']}/runs"), json={"inputs": {}}
        )
        assert started.status_code == 202, started.text
        assert started.json()["ran_as"]["user_id"] == member.user_id
        run = await wait_for(member, started.json()["id"])
        assert run["steps"][0]["output"] == member.user_id
        assert run["ran_as"]["email"] == await _email(member)


async def _first_run(caller: Caller, automation_id: str) -> str:
    for _ in range(300):
        runs = await caller.request(
            "GET", caller.space_path("/runs"), params={"automation_id": automation_id}
        )
        items = runs.json()["items"]
        if items:
            run_id: str = items[0]["id"]
            return run_id
        await asyncio.sleep(0.1)
    raise AssertionError("the event fired no run")
