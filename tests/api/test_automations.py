"""Automation CRUD, status changes, versions and optimistic concurrency."""

from __future__ import annotations

import asyncio
import json

from tests.support.factories import EXAMPLES, Factory, example, minimal_definition
from tests.support.fake_llm import TEST_MODEL


class TestCreate:
    async def test_create_saves_paused_version_1(self, factory: Factory) -> None:
        owner = await factory.owner()
        response = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": minimal_definition(name="Digest")}
        )
        assert response.status_code == 201, response.text
        body = response.json()
        assert body["status"] == "paused"
        assert body["version"] == 1
        assert body["space_id"] == owner.space_id
        assert body["name"] == "Digest"
        assert body["definition"]["plan"][0]["step_id"] == "shape"
        assert body["definition"]["execution"]["max_retries"] == 0, "defaults are filled in"
        assert response.headers["etag"] == '"1"'
        assert response.headers["location"].endswith(body["id"])
        assert set(body) >= {"id", "space_id", "status", "version", "definition", "created_at", "updated_at"}

    async def test_every_example_is_accepted(self, factory: Factory) -> None:
        owner = await factory.owner()
        # Examples name secrets (Slack's token, an API's); saving checks that the space has them.
        for secret in ("slack_bot_token", "payments_token"):
            stored = await owner.request(
                "PUT", owner.space_path(f"/secrets/{secret}"), json={"value": "xoxb-x"}
            )
            assert stored.status_code == 201, stored.text
        for name in sorted(path.name for path in EXAMPLES.glob("*.json")):
            # This deployment allows only the scripted test model.
            document = json.loads(json.dumps(example(name)).replace("openai/gpt-4o-mini", TEST_MODEL))
            created = await owner.create_automation(document)
            assert created["definition"]["name"] == example(name)["name"]

    async def test_get_returns_what_was_created(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        response = await owner.request("GET", owner.space_path(f"/automations/{created['id']}"))
        assert response.status_code == 200
        assert response.json() == created


class TestList:
    async def test_cursor_pagination_walks_every_item_once_newest_first(self, factory: Factory) -> None:
        owner = await factory.owner()
        ids = [(await owner.create_automation(minimal_definition(name=f"a{i}")))["id"] for i in range(7)]
        seen: list[str] = []
        cursor = None
        pages = 0
        while True:
            params = {"limit": 3, **({"cursor": cursor} if cursor else {})}
            response = await owner.request("GET", owner.space_path("/automations"), params=params)
            assert response.status_code == 200, response.text
            body = response.json()
            seen += [item["id"] for item in body["items"]]
            pages += 1
            cursor = body["next_cursor"]
            if cursor is None:
                break
        assert pages == 3
        assert seen == list(reversed(ids))

    async def test_archived_are_hidden_unless_asked_for(self, factory: Factory) -> None:
        owner = await factory.owner()
        kept = await owner.create_automation()
        gone = await owner.create_automation()
        assert (
            await owner.request("POST", owner.space_path(f"/automations/{gone['id']}/archive"))
        ).status_code == 200
        listed = (await owner.request("GET", owner.space_path("/automations"))).json()["items"]
        assert [a["id"] for a in listed] == [kept["id"]]
        archived = (
            await owner.request("GET", owner.space_path("/automations"), params={"status": "archived"})
        ).json()["items"]
        assert [a["id"] for a in archived] == [gone["id"]]

    async def test_bad_cursor_and_limit_are_400(self, factory: Factory) -> None:
        owner = await factory.owner()
        response = await owner.request("GET", owner.space_path("/automations"), params={"cursor": "garbage!"})
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "invalid_cursor"
        response = await owner.request("GET", owner.space_path("/automations"), params={"limit": 100000})
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "limit_too_large"
        response = await owner.request("GET", owner.space_path("/automations"), params={"limit": 0})
        assert response.status_code == 422


class TestUpdate:
    async def test_update_with_if_match_bumps_version_and_records_it(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        path = owner.space_path(f"/automations/{created['id']}")
        response = await owner.request(
            "PUT", path, json={"definition": minimal_definition(name="Renamed")}, headers={"If-Match": '"1"'}
        )
        assert response.status_code == 200, response.text
        assert response.json()["version"] == 2
        assert response.json()["name"] == "Renamed"
        assert response.headers["etag"] == '"2"'
        versions = (await owner.request("GET", path + "/versions")).json()["items"]
        assert [v["version"] for v in versions] == [2, 1]
        assert versions[1]["definition"]["name"] == "Minimal"

    async def test_update_with_body_version(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        response = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{created['id']}"),
            json={"definition": minimal_definition(name="B"), "version": 1},
        )
        assert response.status_code == 200
        assert response.json()["version"] == 2

    async def test_stale_version_is_409_and_changes_nothing(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        path = owner.space_path(f"/automations/{created['id']}")
        ok = await owner.request("PUT", path, json={"definition": minimal_definition(name="B"), "version": 1})
        assert ok.status_code == 200
        stale = await owner.request(
            "PUT", path, json={"definition": minimal_definition(name="C"), "version": 1}
        )
        assert stale.status_code == 409
        assert stale.json()["error"]["code"] == "version_conflict"
        current = (await owner.request("GET", path)).json()
        assert current["name"] == "B"
        assert current["version"] == 2

    async def test_missing_expected_version_is_428(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        response = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{created['id']}"),
            json={"definition": minimal_definition()},
        )
        assert response.status_code == 428
        assert response.json()["error"]["code"] == "precondition_required"

    async def test_if_match_and_body_version_must_agree(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        response = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{created['id']}"),
            json={"definition": minimal_definition(), "version": 1},
            headers={"If-Match": '"2"'},
        )
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "version_mismatch"

    async def test_concurrent_updates_with_one_version_let_exactly_one_win(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        path = owner.space_path(f"/automations/{created['id']}")
        responses = await asyncio.gather(
            *[
                owner.request(
                    "PUT", path, json={"definition": minimal_definition(name=f"n{i}"), "version": 1}
                )
                for i in range(8)
            ]
        )
        codes = sorted(r.status_code for r in responses)
        assert codes == [200] + [409] * 7
        versions = (await owner.request("GET", path + "/versions")).json()["items"]
        assert [v["version"] for v in versions] == [2, 1]


class TestStatus:
    async def test_activate_pause_archive_unarchive(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        path = owner.space_path(f"/automations/{created['id']}")
        for action, expected in [
            ("activate", "active"),
            ("activate", "active"),
            ("pause", "paused"),
            ("archive", "archived"),
            ("unarchive", "paused"),
        ]:
            response = await owner.request("POST", f"{path}/{action}")
            assert response.status_code == 200, (action, response.text)
            assert response.json()["status"] == expected
            assert response.json()["version"] == 1, "status changes do not create versions"

    async def test_archived_cannot_be_activated_or_edited(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        path = owner.space_path(f"/automations/{created['id']}")
        await owner.request("POST", f"{path}/archive")
        activate = await owner.request("POST", f"{path}/activate")
        assert activate.status_code == 409
        assert activate.json()["error"]["code"] == "automation_archived"
        edit = await owner.request("PUT", path, json={"definition": minimal_definition(), "version": 1})
        assert edit.status_code == 409
        assert (await owner.request("GET", path)).json()["status"] == "archived"

    async def test_unarchive_of_live_automation_is_409(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        response = await owner.request("POST", owner.space_path(f"/automations/{created['id']}/unarchive"))
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "not_archived"

    async def test_status_change_honours_if_match(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        path = owner.space_path(f"/automations/{created['id']}")
        response = await owner.request("POST", f"{path}/activate", headers={"If-Match": '"7"'})
        assert response.status_code == 409
        assert (await owner.request("GET", path)).json()["status"] == "paused"


class TestVersions:
    async def test_restore_makes_old_version_current_as_new_version(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation(minimal_definition(name="First"))
        path = owner.space_path(f"/automations/{created['id']}")
        await owner.request("PUT", path, json={"definition": minimal_definition(name="Second"), "version": 1})
        restored = await owner.request("POST", f"{path}/versions/1/restore")
        assert restored.status_code == 200, restored.text
        assert restored.json()["version"] == 3
        assert restored.json()["name"] == "First"
        v3 = (await owner.request("GET", f"{path}/versions/3")).json()
        assert v3["restored_from"] == 1
        assert v3["definition"] == (await owner.request("GET", f"{path}/versions/1")).json()["definition"]

    async def test_restore_of_missing_version_is_404(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        path = owner.space_path(f"/automations/{created['id']}")
        response = await owner.request("POST", f"{path}/versions/9/restore")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "version_not_found"
        assert (await owner.request("GET", path)).json()["version"] == 1

    async def test_restore_with_stale_expected_version_is_409(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        path = owner.space_path(f"/automations/{created['id']}")
        await owner.request("PUT", path, json={"definition": minimal_definition(name="B"), "version": 1})
        response = await owner.request("POST", f"{path}/versions/1/restore", json={"version": 1})
        assert response.status_code == 409
        assert (await owner.request("GET", path)).json()["version"] == 2

    async def test_versions_paginate(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        path = owner.space_path(f"/automations/{created['id']}")
        for version in range(1, 5):
            await owner.request("PUT", path, json={"definition": minimal_definition(), "version": version})
        first = (await owner.request("GET", f"{path}/versions", params={"limit": 2})).json()
        second = (
            await owner.request(
                "GET", f"{path}/versions", params={"limit": 2, "cursor": first["next_cursor"]}
            )
        ).json()
        third = (
            await owner.request(
                "GET", f"{path}/versions", params={"limit": 2, "cursor": second["next_cursor"]}
            )
        ).json()
        assert [v["version"] for v in first["items"] + second["items"] + third["items"]] == [5, 4, 3, 2, 1]
        assert third["next_cursor"] is None
