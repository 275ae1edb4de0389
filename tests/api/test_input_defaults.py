"""Space input defaults: the store (members read, admins write, no secrets), the save-time warning, and
the fire-time resolution of `$space_default`, refused with its own code when a required one is unset."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.support.factories import Caller, Factory
from tests.support.runs import wait_for

CHANNEL_INPUTS: dict[str, Any] = {
    "schema": {
        "type": "object",
        "required": ["channel"],
        "properties": {
            "channel": {"type": "string", "default": "$space_default"},
            "team": {"type": "string", "default": "$space_default"},
        },
    }
}


def echo_definition(**changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "schema_version": "1.0",
        "name": "Echo the channel",
        "inputs": CHANNEL_INPUTS,
        "plan": [
            {
                "step_id": "echo",
                "action": "transform_data",
                "config": {"output": {"channel": "{{ inputs.channel }}", "creator": "{{ run.creator_id }}"}},
            }
        ],
    }
    document.update(changes)
    return document


async def put_default(caller: Caller, name: str, value: Any) -> Any:
    return await caller.request("PUT", caller.space_path(f"/input-defaults/{name}"), json={"value": value})


async def defaults(caller: Caller) -> dict[str, Any]:
    response = await caller.request("GET", caller.space_path("/input-defaults"))
    assert response.status_code == 200, response.text
    return {item["name"]: item["value"] for item in response.json()["items"]}


class TestStore:
    async def test_an_admin_sets_replaces_and_removes_a_default(self, factory: Factory) -> None:
        owner = await factory.owner()
        made = await put_default(owner, "channel", "C0123")
        assert made.status_code == 201, made.text
        assert (made.json()["name"], made.json()["value"]) == ("channel", "C0123")
        assert made.json()["updated_by"] == owner.user_id
        replaced = await put_default(owner, "channel", {"id": "C0456", "tags": ["a", 1]})
        assert replaced.status_code == 200, replaced.text
        assert await defaults(owner) == {"channel": {"id": "C0456", "tags": ["a", 1]}}
        gone = await owner.request("DELETE", owner.space_path("/input-defaults/channel"))
        assert gone.status_code == 204
        assert await defaults(owner) == {}
        again = await owner.request("DELETE", owner.space_path("/input-defaults/channel"))
        assert (again.status_code, again.json()["error"]["code"]) == (404, "input_default_not_found")

    async def test_a_member_reads_but_cannot_write(self, factory: Factory) -> None:
        owner = await factory.owner()
        await put_default(owner, "team", "ops")
        member = await factory.member(owner)
        assert await defaults(member) == {"team": "ops"}
        for response in (
            await put_default(member, "team", "mine"),
            await member.request("DELETE", member.space_path("/input-defaults/team")),
        ):
            assert (response.status_code, response.json()["error"]["code"]) == (403, "role_insufficient")
        assert await defaults(owner) == {"team": "ops"}

    async def test_another_space_neither_sees_nor_changes_them(self, factory: Factory) -> None:
        owner = await factory.owner()
        stranger = await factory.owner(space="Other")
        await put_default(owner, "team", "ops")
        for method, body in (("GET", None), ("PUT", {"value": "x"}), ("DELETE", None)):
            suffix = "/input-defaults" if method == "GET" else "/input-defaults/team"
            response = await stranger.request(method, stranger.space_path(suffix, owner.space_id), json=body)
            assert response.status_code == 404, (method, response.text)
        assert await defaults(stranger) == {}
        assert await defaults(owner) == {"team": "ops"}

    @pytest.mark.parametrize(
        ("name", "value", "code", "path"),
        [
            ("has space", "x", "invalid_default_name", "/path/name"),
            ("9lives", "x", "invalid_default_name", "/path/name"),
            ("x" * 65, "x", "invalid_default_name", "/path/name"),
            ("team", None, "invalid_default_value", "/value"),
            ("token", {"$secret": "slack_bot_token"}, "secret_not_allowed", "/value"),
            ("nested", {"auth": [{"$secret": "k"}]}, "secret_not_allowed", "/value"),
            ("key", "sk-proj-" + "a1B2c3D4" * 6, "secret_not_allowed", "/value"),
            (
                "slack",
                "xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx",
                "secret_not_allowed",
                "/value",
            ),
            ("big", "x" * (16 * 1024 + 1), "default_too_large", "/value"),
        ],
    )
    async def test_bad_names_and_values_are_refused_and_nothing_is_stored(
        self, factory: Factory, name: str, value: Any, code: str, path: str
    ) -> None:
        owner = await factory.owner()
        response = await put_default(owner, name, value)
        assert response.status_code == 422, response.text
        error = response.json()["error"]
        assert error["code"] == code
        assert error["details"][0]["path"] == path
        if isinstance(value, str) and len(value) < 200:
            assert value not in response.text, "a refused value is not echoed back"
        assert await defaults(owner) == {}

    async def test_a_body_without_value_or_with_extra_fields_is_refused(self, factory: Factory) -> None:
        owner = await factory.owner()
        for body in ({}, {"value": "x", "secret": True}):
            response = await owner.request("PUT", owner.space_path("/input-defaults/team"), json=body)
            assert response.status_code == 422, response.text
        assert await defaults(owner) == {}


class TestSaveTimeWarning:
    async def test_validation_flags_a_space_default_the_space_has_not_set(self, factory: Factory) -> None:
        owner = await factory.owner()
        await put_default(owner, "team", "ops")
        response = await owner.request(
            "POST", owner.space_path("/automations/validate"), json={"definition": echo_definition()}
        )
        assert response.status_code == 200, response.text
        answer = response.json()
        assert answer["valid"] is True
        assert [(w["path"], w["code"]) for w in answer["warnings"]] == [
            ("/inputs/schema/properties/channel/default", "space_default_missing")
        ]
        await put_default(owner, "channel", "C0123")
        saved = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": echo_definition()}
        )
        assert saved.status_code == 201, saved.text
        assert saved.json()["warnings"] == []


class TestFire:
    async def test_a_run_takes_the_space_s_default_and_a_given_input_wins(
        self, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        await put_default(owner, "channel", "C0123")
        automation = await owner.create_automation(echo_definition())
        path = owner.space_path(f"/automations/{automation['id']}/runs")
        first = await owner.request("POST", path, json={"inputs": {}})
        assert first.status_code == 202, first.text
        assert first.json()["inputs"] == {"channel": "C0123"}, "an unset optional default is left out"
        done = await wait_for(owner, first.json()["id"])
        assert done["status"] == "succeeded", done
        (step,) = done["steps"]
        assert step["output"]["channel"] == "C0123"
        given = await owner.request("POST", path, json={"inputs": {"channel": "C9"}})
        assert given.json()["inputs"] == {"channel": "C9"}

    async def test_a_preview_shows_the_value_a_fire_would_take(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation(echo_definition())
        path = owner.space_path(f"/automations/{automation['id']}/preview")
        refused = await owner.request("POST", path, json={"inputs": {}})
        assert refused.status_code == 422, refused.text
        await put_default(owner, "channel", "C0123")
        shown = await owner.request("POST", path, json={"inputs": {}})
        assert shown.status_code == 200, shown.text
        assert shown.json()["inputs"] == {"channel": "C0123"}

    async def test_a_changed_default_reaches_the_next_fire_not_the_last_run(self, factory: Factory) -> None:
        owner = await factory.owner()
        await put_default(owner, "channel", "C1")
        automation = await owner.create_automation(echo_definition())
        path = owner.space_path(f"/automations/{automation['id']}/runs")
        before = (await owner.request("POST", path, json={"inputs": {}})).json()
        await put_default(owner, "channel", "C2")
        after = (await owner.request("POST", path, json={"inputs": {}})).json()
        assert (before["inputs"]["channel"], after["inputs"]["channel"]) == ("C1", "C2")
        kept = await owner.request("GET", owner.space_path(f"/runs/{before['id']}"))
        assert kept.json()["inputs"]["channel"] == "C1", "a run keeps the inputs it fired with"

    async def test_a_manual_fire_without_the_required_default_is_refused_with_its_code(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation(echo_definition())
        path = owner.space_path(f"/automations/{automation['id']}/runs")
        response = await owner.request("POST", path, json={"inputs": {}})
        assert response.status_code == 422, response.text
        error = response.json()["error"]
        assert error["code"] == "space_default_missing"
        assert [(d["path"], d["code"]) for d in error["details"]] == [
            ("/inputs/channel", "space_default_missing")
        ]
        runs = await owner.request(
            "GET", owner.space_path("/runs"), params={"automation_id": automation["id"]}
        )
        assert runs.json()["items"] == [], "nothing was created"

    async def test_a_webhook_fire_without_the_required_default_is_refused_not_dropped(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        document = echo_definition(triggers=[{"type": "webhook", "config": {}}])
        automation = await owner.create_automation(document)
        await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
        token = automation["triggers"][0]["token"]
        fire = f"/api/v1/automations/{automation['id']}/fire"
        headers = {"Authorization": f"Bearer {token}"}
        refused = await owner.client.post(fire, json={}, headers=headers)
        assert refused.status_code == 422, refused.text
        assert refused.json()["error"]["code"] == "space_default_missing"
        runs = await owner.request(
            "GET", owner.space_path("/runs"), params={"automation_id": automation["id"]}
        )
        assert runs.json()["items"] == [], "no dropped run piles up"
        await put_default(owner, "channel", "C0123")
        accepted = await owner.client.post(fire, json={}, headers=headers)
        assert accepted.status_code == 202, accepted.text
        run = await owner.request("GET", owner.space_path(f"/runs/{accepted.json()['run_id']}"))
        assert run.json()["inputs"] == {"channel": "C0123"}

    async def test_an_event_fire_without_it_is_a_dropped_run_that_says_why(
        self, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        document = echo_definition(triggers=[{"type": "event", "config": {"event_type": "crm.deal_won"}}])
        automation = await owner.create_automation(document)
        await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
        published = await owner.request(
            "POST", owner.space_path("/events"), json={"event_type": "crm.deal_won", "payload": {}}
        )
        assert published.status_code == 202, published.text
        runs = await _runs_eventually(owner, automation["id"])
        (run,) = runs
        assert run["status"] == "dropped"
        assert "no input default 'channel'" in run["reason"], run["reason"]


async def _runs_eventually(owner: Caller, automation_id: str) -> list[dict[str, Any]]:
    """The automation's runs once the event's dispatch made one (it runs on the worker)."""
    for _ in range(200):
        runs = await owner.request("GET", owner.space_path("/runs"), params={"automation_id": automation_id})
        items: list[dict[str, Any]] = runs.json()["items"]
        if items:
            return items
        await asyncio.sleep(0.1)
    raise AssertionError("the event fired no run")
