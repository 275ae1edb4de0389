"""Overlap at the level of what could be duplicated, and the stand-alone check that answers it."""

from __future__ import annotations

import uuid
from typing import Any

from tests.support.factories import Caller, Factory
from tests.tryout.test_overlap_api import activate, poster, save


def caller_of(name: str, url: str, method: str = "POST", cron: str = "0 9 * * *") -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": name,
        "triggers": [{"type": "schedule", "config": {"cron": cron}}],
        "plan": [{"step_id": "call", "action": "http_request", "config": {"method": method, "url": url}}],
    }


async def check(caller: Caller, query: str) -> Any:
    return await caller.request("GET", caller.space_path(f"/automations/overlaps?{query}"))


class TestActivation:
    async def test_two_endpoints_of_one_api_activate_without_an_acknowledgement(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        first = await save(owner, caller_of("Write b", "https://api.example.com/b"))
        second = await save(owner, caller_of("Write c", "https://api.example.com/c", cron="0 10 * * *"))
        assert second["overlaps"] == []
        assert (await activate(owner, first["id"])).status_code == 200
        assert (await activate(owner, second["id"])).status_code == 200

    async def test_the_same_path_with_another_query_needs_one(self, factory: Factory) -> None:
        owner = await factory.owner()
        first = await save(owner, caller_of("Write b", "https://api.example.com/b?source=a"))
        second = await save(
            owner, caller_of("Write b again", "https://api.example.com/b?source=z", cron="0 8 * * *")
        )
        (overlap,) = second["overlaps"]
        assert overlap["strict"] is True
        assert (
            overlap["reasons"][0]["message"]
            == "both write with http.request to POST https://api.example.com/b"
        )
        assert (await activate(owner, first["id"])).status_code == 200
        refused = await activate(owner, second["id"])
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "overlap_unacknowledged"


class TestCheck:
    async def test_a_candidates_targets_find_the_writers_with_owner_last_run_and_trigger_kinds(
        self, factory: Factory
    ) -> None:
        email = f"writer-{uuid.uuid4().hex[:8]}@example.test"
        owner = await factory.owner(email=email)
        await owner.request("PUT", owner.space_path("/secrets/slack_bot_token"), json={"value": "xoxb-good"})
        writer = await save(owner, caller_of("Write b", "https://api.example.com/b"))
        other_path = await save(owner, caller_of("Write c", "https://api.example.com/c"))
        slack = await save(owner, poster("Post to eng"))
        run = await owner.request("POST", owner.space_path(f"/automations/{writer['id']}/runs"), json={})
        assert run.status_code in (200, 201, 202), run.text

        answer = await check(owner, "http=POST%20https://api.example.com/b%3Fpage%3D2")
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert (body["count"], body["strict_count"]) == (1, 1)
        (match,) = body["matches"]
        assert match["automation_id"] == writer["id"]
        assert match["owner"] == {"user_id": owner.user_id, "email": email}
        assert match["last_run_at"] is not None
        assert match["trigger_kinds"] == ["schedule"]
        assert match["strict"] is True
        assert other_path["id"] not in {m["automation_id"] for m in body["matches"]}

        by_channel = (await check(owner, "slack_channel=%23eng&slack_channel=%23ops")).json()
        assert [m["automation_id"] for m in by_channel["matches"]] == [slack["id"]]
        assert by_channel["matches"][0]["last_run_at"] is None
        assert (await check(owner, "slack_channel=%23random")).json() == {
            "count": 0,
            "strict_count": 0,
            "matches": [],
        }
        narrowed = (await check(owner, "slack_channel=%23eng&trigger_kind=webhook")).json()
        assert narrowed["count"] == 0

    async def test_an_existing_automation_is_checked_without_itself(self, factory: Factory) -> None:
        owner = await factory.owner()
        first = await save(owner, caller_of("Write b", "https://api.example.com/b"))
        second = await save(owner, caller_of("Write b too", "https://api.example.com/b", cron="0 9 * * 1"))
        body = (await check(owner, f"automation_id={first['id']}")).json()
        assert [m["automation_id"] for m in body["matches"]] == [second["id"]]
        assert body["strict_count"] == 1
        assert {r["kind"] for r in body["matches"][0]["reasons"]} == {"schedule", "write"}

    async def test_tools_compare_by_literal_key_arguments(self, factory: Factory) -> None:
        owner = await factory.owner()
        query = 'tool=crm.create_note%20{"customer":"42"}'
        assert (await check(owner, query)).json()["count"] == 0
        bad = await check(owner, "tool=crm.create_note%20[1]")
        assert bad.status_code == 422
        assert bad.json()["error"]["code"] == "invalid_overlap_target"

    async def test_bad_input_is_a_clear_4xx(self, factory: Factory) -> None:
        owner = await factory.owner()
        stranger = await factory.owner(space="Other")
        theirs = await save(stranger, caller_of("Theirs", "https://api.example.com/b"))
        for query, code in [
            ("", "overlap_query_invalid"),
            (f"automation_id={theirs['id']}&http=POST%20https://a.example.com/x", "overlap_query_invalid"),
            ("http=GET%20https://api.example.com/b", "invalid_overlap_target"),
            ("http=POST%20ftp://api.example.com/b", "invalid_overlap_target"),
            ("http=https://api.example.com/b", "invalid_overlap_target"),
            ("http=POST%20{{%20inputs.url%20}}", "invalid_overlap_target"),
            ("slack_channel=%20", "invalid_overlap_target"),
            ("tool=not%20an%20id", "invalid_overlap_target"),
            ("slack_channel=%23a&trigger_kind=cron", "invalid_trigger_kind"),
        ]:
            response = await check(owner, query)
            assert response.status_code == 422, (query, response.text)
            assert response.json()["error"]["code"] == code, (query, response.text)
        assert (await check(owner, "automation_id=nope")).status_code == 422
        missing = await check(owner, f"automation_id={theirs['id']}")
        assert missing.status_code == 404, "another space's automation does not exist here"
        assert (await check(stranger, "http=POST%20https://api.example.com/b")).json()["count"] == 1
        assert (await check(owner, "http=POST%20https://api.example.com/b")).json()["count"] == 0
