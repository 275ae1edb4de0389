"""Overlap warnings on save and on activate: the 409 without an acknowledgement, the kept note."""

from __future__ import annotations

from typing import Any

from tests.support.factories import Caller, Factory


def poster(
    name: str, channel: str = "#eng", cron: str = "0 9 * * *", goal: str | None = None
) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": name,
        "goal": goal,
        "triggers": [{"type": "schedule", "config": {"cron": cron}}],
        "plan": [
            {
                "step_id": "post",
                "action": "slack_post",
                "config": {"channel": channel, "text": "hello", "token": {"$secret": "slack_bot_token"}},
            }
        ],
    }


async def save(owner: Caller, document: dict[str, Any]) -> dict[str, Any]:
    response = await owner.request("POST", owner.space_path("/automations"), json={"definition": document})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


async def activate(owner: Caller, automation_id: str, **body: Any) -> Any:
    return await owner.request("POST", owner.space_path(f"/automations/{automation_id}/activate"), json=body)


class TestOnSave:
    async def test_the_answer_lists_overlaps_with_their_reasons(self, factory: Factory) -> None:
        owner = await factory.owner()
        await owner.request("PUT", owner.space_path("/secrets/slack_bot_token"), json={"value": "xoxb-good"})
        first = await save(owner, poster("Morning post"))
        assert first["overlaps"] == []
        second = await save(owner, poster("Another morning post"))
        (overlap,) = second["overlaps"]
        assert overlap["automation_id"] == first["id"]
        assert overlap["strict"] is True
        assert {reason["kind"] for reason in overlap["reasons"]} == {"schedule", "write"}
        elsewhere = await save(owner, poster("Evening post", channel="#ops", cron="0 18 * * *"))
        assert elsewhere["overlaps"] == []

    async def test_other_spaces_and_archived_automations_are_not_compared(self, factory: Factory) -> None:
        owner = await factory.owner()
        stranger = await factory.owner(space="Other")
        for caller in (owner, stranger):
            await caller.request(
                "PUT", caller.space_path("/secrets/slack_bot_token"), json={"value": "xoxb-good"}
            )
        theirs = await save(stranger, poster("Theirs"))
        archived = await save(owner, poster("Old one"))
        await owner.request("POST", owner.space_path(f"/automations/{archived['id']}/archive"))
        mine = await save(owner, poster("Mine"))
        assert mine["overlaps"] == []
        assert theirs["overlaps"] == []


class TestOnActivate:
    async def test_a_strict_overlap_needs_an_acknowledgement_and_keeps_the_note(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        await owner.request("PUT", owner.space_path("/secrets/slack_bot_token"), json={"value": "xoxb-good"})
        first = await save(owner, poster("First"))
        second = await save(owner, poster("Second"))
        assert (await activate(owner, second["id"])).status_code == 200, "nothing active to overlap yet"
        refused = await activate(owner, first["id"])
        assert refused.status_code == 409
        error = refused.json()["error"]
        assert error["code"] == "overlap_unacknowledged"
        assert [detail["code"] for detail in error["details"]] == ["strict_overlap"]
        assert second["id"] in error["details"][0]["message"]
        still = await owner.request("GET", owner.space_path(f"/automations/{first['id']}"))
        assert still.json()["status"] == "paused", "nothing changed"
        for body in (
            {"acknowledged_overlap": True},
            {"acknowledged_overlap": True, "coexistence_note": "too short"},
            {"acknowledged_overlap": True, "coexistence_note": "x" * 1001},
        ):
            response = await activate(owner, first["id"], **body)
            assert response.status_code == 422, (body, response.text)
        note = "Second posts the summary, first the alerts; both belong in #eng."
        accepted = await activate(owner, first["id"], acknowledged_overlap=True, coexistence_note=note)
        assert accepted.status_code == 200, accepted.text
        assert accepted.json()["status"] == "active"
        assert accepted.json()["coexistence_note"] == note

    async def test_a_loose_overlap_activates_without_one(self, factory: Factory) -> None:
        owner = await factory.owner()
        await owner.request("PUT", owner.space_path("/secrets/slack_bot_token"), json={"value": "xoxb-good"})
        first = await save(
            owner, poster("First", channel="#a", goal="Post the daily sales summary to the team")
        )
        second = await save(owner, poster("Second", channel="#b", goal="Daily sales summary for the team"))
        assert {r["kind"] for r in second["overlaps"][0]["reasons"]} == {"schedule", "goal"}
        assert (await activate(owner, first["id"])).status_code == 200
        assert (await activate(owner, second["id"])).status_code == 200

    async def test_an_archived_automation_is_refused_as_archived_first(self, factory: Factory) -> None:
        owner = await factory.owner()
        await owner.request("PUT", owner.space_path("/secrets/slack_bot_token"), json={"value": "xoxb-good"})
        active = await save(owner, poster("Active"))
        archived = await save(owner, poster("Archived"))
        assert (await activate(owner, active["id"])).status_code == 200
        await owner.request("POST", owner.space_path(f"/automations/{archived['id']}/archive"))
        response = await activate(owner, archived["id"])
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "automation_archived"

    async def test_an_acknowledgement_goes_with_activate_only(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation()
        response = await owner.request(
            "POST",
            owner.space_path(f"/automations/{automation['id']}/pause"),
            json={"acknowledged_overlap": True, "coexistence_note": "a long enough note"},
        )
        # Pause's body has only `version` (as its documented schema says): each extra field is named.
        assert response.status_code == 422
        error = response.json()["error"]
        assert error["code"] == "validation_failed"
        assert {detail["path"] for detail in error["details"]} == {
            "/acknowledged_overlap",
            "/coexistence_note",
        }
