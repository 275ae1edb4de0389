"""`…/automations/{aid}/kv`: inspect and fix an automation's state; limits, expiry, quota, tenancy."""

from __future__ import annotations

import uuid
from datetime import timedelta

from sqlalchemy import insert, update

from app.persistence.base import utcnow
from app.persistence.models import AutomationKv
from app.services.resources.kv import MAX_KEYS
from tests.support.factories import Caller, Factory


def kv_path(caller: Caller, automation_id: str, key: str = "") -> str:
    return caller.space_path(f"/automations/{automation_id}/kv" + (f"/{key}" if key else ""))


async def _automation(owner: Caller) -> str:
    return str((await owner.create_automation())["id"])


class TestRoundTrip:
    async def test_put_get_list_delete(self, factory: Factory) -> None:
        owner = await factory.owner()
        aid = await _automation(owner)
        first = await owner.request("PUT", kv_path(owner, aid, "cursor/last"), json={"value": {"id": 41}})
        assert first.status_code == 201, first.text
        assert first.json()["key"] == "cursor/last", "a key may hold slashes"
        again = await owner.request("PUT", kv_path(owner, aid, "cursor/last"), json={"value": {"id": 42}})
        assert again.status_code == 200
        got = await owner.request("GET", kv_path(owner, aid, "cursor/last"))
        assert got.json()["value"] == {"id": 42}
        assert got.json()["expires_at"] is None
        await owner.request("PUT", kv_path(owner, aid, "seen/b"), json={"value": True, "ttl_seconds": 3600})
        await owner.request("PUT", kv_path(owner, aid, "seen/a"), json={"value": None})
        listed = (await owner.request("GET", kv_path(owner, aid), params={"prefix": "seen/"})).json()
        assert [item["key"] for item in listed["items"]] == ["seen/a", "seen/b"]
        assert listed["items"][1]["expires_at"] is not None
        deleted = await owner.request("DELETE", kv_path(owner, aid, "seen/a"))
        assert deleted.status_code == 204
        gone = await owner.request("GET", kv_path(owner, aid, "seen/a"))
        assert gone.status_code == 404
        assert gone.json()["error"]["code"] == "kv_key_not_found"
        assert (await owner.request("DELETE", kv_path(owner, aid, "seen/a"))).status_code == 404

    async def test_pages_in_key_order_and_a_prefix_is_literal(self, factory: Factory) -> None:
        owner = await factory.owner()
        aid = await _automation(owner)
        for key in ("k3", "k1", "k2", "k_x", "kAx"):
            await owner.request("PUT", kv_path(owner, aid, key), json={"value": key})
        page = (await owner.request("GET", kv_path(owner, aid), params={"limit": 2})).json()
        assert [item["key"] for item in page["items"]] == ["k1", "k2"]
        rest = (
            await owner.request(
                "GET", kv_path(owner, aid), params={"limit": 10, "cursor": page["next_cursor"]}
            )
        ).json()
        assert [item["key"] for item in rest["items"]] == ["k3", "kAx", "k_x"]
        assert rest["next_cursor"] is None
        underscore = (await owner.request("GET", kv_path(owner, aid), params={"prefix": "k_"})).json()
        assert [item["key"] for item in underscore["items"]] == ["k_x"], "_ is not a LIKE wildcard"

    async def test_clearing_by_prefix(self, factory: Factory) -> None:
        owner = await factory.owner()
        aid = await _automation(owner)
        for key in ("a/1", "a/2", "b/1"):
            await owner.request("PUT", kv_path(owner, aid, key), json={"value": 1})
        cleared = await owner.request("DELETE", kv_path(owner, aid), params={"prefix": "a/"})
        assert cleared.json() == {"deleted": 2}
        listed = (await owner.request("GET", kv_path(owner, aid))).json()
        assert [item["key"] for item in listed["items"]] == ["b/1"]

    async def test_an_expired_key_is_gone_for_every_reader(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        aid = await _automation(owner)
        await owner.request("PUT", kv_path(owner, aid, "old"), json={"value": 1, "ttl_seconds": 60})
        async with app.state.sessionmaker() as session, session.begin():
            await session.execute(
                update(AutomationKv)
                .where(AutomationKv.key == "old")
                .values(expires_at=utcnow() - timedelta(seconds=1))
            )
        assert (await owner.request("GET", kv_path(owner, aid, "old"))).status_code == 404
        assert (await owner.request("GET", kv_path(owner, aid))).json()["items"] == []
        rewritten = await owner.request("PUT", kv_path(owner, aid, "old"), json={"value": 2})
        assert rewritten.status_code == 201, "an expired key is written anew"


class TestBadInput:
    async def test_control_characters_in_a_key(self, factory: Factory) -> None:
        owner = await factory.owner()
        aid = await _automation(owner)
        for key in ("a%0Ab", "tab%09", "bell%07", "del%7F"):
            response = await owner.request("PUT", kv_path(owner, aid, key), json={"value": 1})
            assert response.status_code == 422, (key, response.text)
            assert response.json()["error"]["code"] == "invalid_key"
        assert (await owner.request("GET", kv_path(owner, aid))).json()["items"] == []

    async def test_a_key_over_256_characters(self, factory: Factory) -> None:
        owner = await factory.owner()
        aid = await _automation(owner)
        assert (
            await owner.request("PUT", kv_path(owner, aid, "k" * 256), json={"value": 1})
        ).status_code == 201
        response = await owner.request("PUT", kv_path(owner, aid, "k" * 257), json={"value": 1})
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "invalid_key"

    async def test_a_value_over_64_kb(self, factory: Factory) -> None:
        owner = await factory.owner()
        aid = await _automation(owner)
        fits = "x" * (64 * 1024 - 2)  # the two quotes make it exactly 64 KB
        assert (
            await owner.request("PUT", kv_path(owner, aid, "big"), json={"value": fits})
        ).status_code == 201
        response = await owner.request("PUT", kv_path(owner, aid, "big"), json={"value": fits + "x"})
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "value_too_large"
        assert (await owner.request("GET", kv_path(owner, aid, "big"))).json()["value"] == fits, (
            "nothing changed"
        )

    async def test_bad_ttls_and_bodies(self, factory: Factory) -> None:
        owner = await factory.owner()
        aid = await _automation(owner)
        for body in (
            {"value": 1, "ttl_seconds": 0},
            {"value": 1, "ttl_seconds": 10**9},
            {},
            {"value": 1, "x": 2},
        ):
            response = await owner.request("PUT", kv_path(owner, aid, "k"), json=body)
            assert response.status_code == 422, (body, response.text)

    async def test_more_than_10000_keys(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        aid = await _automation(owner)
        now = utcnow()
        rows = [
            {
                "id": uuid.uuid4(),
                "space_id": uuid.UUID(owner.space_id),
                "automation_id": uuid.UUID(aid),
                "key": f"k{i:05d}",
                "value": i,
                "created_at": now,
                "updated_at": now,
            }
            for i in range(MAX_KEYS - 1)
        ]
        async with app.state.sessionmaker() as session, session.begin():
            await session.execute(insert(AutomationKv), rows)
        last = await owner.request("PUT", kv_path(owner, aid, "last"), json={"value": 1})
        assert last.status_code == 201, "the 10,000th key fits"
        over = await owner.request("PUT", kv_path(owner, aid, "one-more"), json={"value": 1})
        assert over.status_code == 409
        assert over.json()["error"]["code"] == "kv_quota_exceeded"
        assert (
            await owner.request("PUT", kv_path(owner, aid, "last"), json={"value": 2})
        ).status_code == 200, "replacing a key needs no room"
        async with app.state.sessionmaker() as session, session.begin():
            await session.execute(
                update(AutomationKv)
                .where(AutomationKv.key == "k00000")
                .values(expires_at=now - timedelta(seconds=1))
            )
        assert (
            await owner.request("PUT", kv_path(owner, aid, "one-more"), json={"value": 1})
        ).status_code == 201, "an expired key frees its room"


class TestTenancy:
    async def test_another_space_sees_404_and_changes_nothing(self, factory: Factory) -> None:
        owner = await factory.owner()
        stranger = await factory.owner(space="Other")
        aid = await _automation(owner)
        await owner.request("PUT", kv_path(owner, aid, "k"), json={"value": "mine"})
        for method, body in (("GET", None), ("PUT", {"value": "theirs"}), ("DELETE", None)):
            response = await stranger.request(method, kv_path(stranger, aid, "k"), json=body)
            assert response.status_code == 404, (method, response.text)
            response = await stranger.request(method, kv_path(owner, aid, "k"), json=body)
            assert response.status_code == 404, (method, response.text)
        assert (await owner.request("GET", kv_path(owner, aid, "k"))).json()["value"] == "mine"

    async def test_keys_belong_to_one_automation(self, factory: Factory) -> None:
        owner = await factory.owner()
        first, second = await _automation(owner), await _automation(owner)
        await owner.request("PUT", kv_path(owner, first, "k"), json={"value": 1})
        assert (await owner.request("GET", kv_path(owner, second, "k"))).status_code == 404
