"""Replays: a new run with the original's payload and inputs, on its snapshot or the current version."""

from __future__ import annotations

from typing import Any

from tests.support.factories import Caller, Factory
from tests.support.runs import definition, fire, start, wait_for

INPUTS = {"schema": {"type": "object", "properties": {"who": {"type": "string"}}}}


def greeting(word: str) -> dict[str, Any]:
    return definition(
        {
            "step_id": "say",
            "action": "transform_data",
            "config": {"output": word + " {{ inputs.who }}"},
            "output_as": "said",
        },
        inputs=INPUTS,
    )


async def replay(caller: Caller, run_id: str, **body: Any) -> Any:
    return await caller.request("POST", caller.space_path(f"/runs/{run_id}/replay"), json=body)


async def _update(owner: Caller, automation_id: str, document: dict[str, Any]) -> None:
    response = await owner.request(
        "PUT", owner.space_path(f"/automations/{automation_id}"), json={"definition": document, "version": 1}
    )
    assert response.status_code == 200, response.text


class TestReplay:
    async def test_snapshot_and_current_versions(self, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation_id, run = await start(owner, greeting("Hello"), {"who": "Ada"})
        original = await wait_for(owner, run["id"])
        await _update(owner, automation_id, greeting("Goodbye"))

        response = await replay(owner, original["id"])
        assert response.status_code == 202, response.text
        snapshot = await wait_for(owner, response.json()["id"])
        assert snapshot["replay_of"] == original["id"]
        assert snapshot["automation_version"] == 1
        assert snapshot["inputs"] == {"who": "Ada"}
        assert snapshot["output"] == {"said": "Hello Ada"}
        assert snapshot["mode"] == "live"

        current = await wait_for(owner, (await replay(owner, original["id"], version="current")).json()["id"])
        assert current["automation_version"] == 2
        assert current["output"] == {"said": "Goodbye Ada"}
        assert current["replay_of"] == original["id"]

    async def test_a_replay_in_dry_run_mode_keeps_the_payload(self, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        _, run = await start(owner, greeting("Hi"), {"who": "Bo"})
        await wait_for(owner, run["id"])
        response = await replay(owner, run["id"], mode="dry_run", llm="skip")
        assert response.status_code == 202
        done = await wait_for(owner, response.json()["id"])
        assert (done["mode"], done["llm_mode"]) == ("dry_run", "skip")
        first = (await owner.request("GET", owner.space_path(f"/runs/{run['id']}"))).json()
        assert done["trigger_payload"] == first["trigger_payload"]
        assert done["inputs"] == first["inputs"] == {"who": "Bo"}
        again = await wait_for(owner, (await replay(owner, done["id"])).json()["id"])
        assert again["mode"] == "dry_run", "a replay keeps the original's mode unless told otherwise"
        assert again["replay_of"] == done["id"]

    async def test_a_replay_works_on_a_paused_automation(self, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation = await owner.create_automation(greeting("Hey"))
        run = await fire(owner, automation["id"], {"who": "Cy"})
        await wait_for(owner, run["id"])
        response = await replay(owner, run["id"])
        assert response.status_code == 202, response.text


class TestBadInput:
    async def test_another_space_or_an_unknown_run_is_404(self, factory: Factory) -> None:
        owner = await factory.owner()
        stranger = await factory.owner(space="Other")
        automation = await owner.create_automation(greeting("Yo"))
        run = await fire(owner, automation["id"], {"who": "Di"})
        response = await stranger.request("POST", stranger.space_path(f"/runs/{run['id']}/replay"), json={})
        assert response.status_code == 404
        response = await stranger.request("POST", owner.space_path(f"/runs/{run['id']}/replay"), json={})
        assert response.status_code == 404
        response = await replay(owner, "00000000-0000-0000-0000-000000000000")
        assert response.status_code == 404
        runs = (await owner.request("GET", owner.space_path("/runs"))).json()["items"]
        assert len(runs) == 1, "nothing was created"

    async def test_bad_bodies(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation(greeting("Yo"))
        run = await fire(owner, automation["id"], {"who": "Di"})
        for body in ({"version": "latest"}, {"mode": "bogus"}, {"llm": "no"}, {"extra": 1}):
            response = await replay(owner, run["id"], **body)
            assert response.status_code == 422, (body, response.text)

    async def test_inputs_the_current_schema_refuses_are_422(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation(greeting("Yo"))
        run = await fire(owner, automation["id"], {"who": "Di"})
        stricter = greeting("Yo")
        stricter["inputs"] = {"schema": {"type": "object", "properties": {"who": {"type": "integer"}}}}
        await _update(owner, automation["id"], stricter)
        response = await replay(owner, run["id"], version="current")
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "invalid_inputs"
        assert (await replay(owner, run["id"], version="snapshot")).status_code == 202

    async def test_an_archived_automation_is_not_replayed(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation(greeting("Yo"))
        run = await fire(owner, automation["id"], {"who": "Di"})
        await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/archive"))
        response = await replay(owner, run["id"])
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "automation_archived"
