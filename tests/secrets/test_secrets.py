"""Secrets over the API: set, replace, list, get, delete; roles; other spaces; bad input; no value ever."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from httpx import Response

from tests.support.factories import Caller, Factory

VALUE = "sk-live-ThisIsThePlaintextValue-0001"


def _error(response: Response) -> dict[str, Any]:
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "details"}, body
    return body["error"]  # type: ignore[no-any-return]


async def put(caller: Caller, name: str, value: str = VALUE, **extra: Any) -> Response:
    return await caller.request("PUT", caller.space_path(f"/secrets/{name}"), json={"value": value, **extra})


@pytest.fixture
async def owner(factory: Factory) -> Caller:
    return await factory.owner()


class TestSetAndRead:
    async def test_create_is_201_and_answers_metadata_only(self, owner: Caller) -> None:
        response = await put(owner, "crm_token", description="CRM API token")
        assert response.status_code == 201, response.text
        body = response.json()
        assert set(body) == {
            "name",
            "description",
            "hosts",
            "suggested_hosts",
            "created_at",
            "updated_at",
            "created_by",
            "updated_by",
        }
        assert body["name"] == "crm_token"
        assert body["description"] == "CRM API token"
        assert body["created_by"] == body["updated_by"] == owner.user_id
        assert response.headers["location"] == owner.space_path("/secrets/crm_token")
        assert VALUE not in response.text

    async def test_replace_is_200_keeps_creator_and_records_who_set_it(
        self, owner: Caller, factory: Factory
    ) -> None:
        assert (await put(owner, "crm_token", description="first")).status_code == 201
        admin = await factory.member(owner, role="admin")
        replaced = await put(admin, "crm_token", value="another value", description="second")
        assert replaced.status_code == 200, replaced.text
        body = replaced.json()
        assert body["description"] == "second"
        assert body["created_by"] == owner.user_id
        assert body["updated_by"] == admin.user_id
        assert body["updated_at"] >= body["created_at"]
        listing = (await owner.request("GET", owner.space_path("/secrets"))).json()
        assert [item["name"] for item in listing["items"]] == ["crm_token"]

    async def test_concurrent_first_writes_make_one_secret(self, owner: Caller) -> None:
        answers = await asyncio.gather(*(put(owner, "raced", value=f"value {i}") for i in range(4)))
        assert sorted(answer.status_code for answer in answers) == [200, 200, 200, 201]
        listing = (await owner.request("GET", owner.space_path("/secrets"))).json()
        assert [item["name"] for item in listing["items"]] == ["raced"]

    async def test_get_one_and_404_for_an_unknown_name(self, owner: Caller) -> None:
        await put(owner, "smtp_password", description=None)
        one = await owner.request("GET", owner.space_path("/secrets/smtp_password"))
        assert one.status_code == 200
        assert one.json()["name"] == "smtp_password"
        assert one.json()["description"] is None
        assert VALUE not in one.text
        missing = await owner.request("GET", owner.space_path("/secrets/nope"))
        assert missing.status_code == 404
        assert _error(missing)["code"] == "secret_not_found"

    async def test_list_is_by_name_and_paginates(self, owner: Caller) -> None:
        names = ["delta", "alpha", "charlie", "bravo", "echo"]
        for name in names:
            assert (await put(owner, name)).status_code == 201
        seen: list[str] = []
        cursor = None
        while True:
            params: dict[str, Any] = {"limit": 2}
            if cursor:
                params["cursor"] = cursor
            page = await owner.request("GET", owner.space_path("/secrets"), params=params)
            assert page.status_code == 200, page.text
            assert VALUE not in page.text
            body = page.json()
            assert len(body["items"]) <= 2
            seen += [item["name"] for item in body["items"]]
            cursor = body["next_cursor"]
            if cursor is None:
                break
        assert seen == sorted(names)

    async def test_a_forged_cursor_is_400_not_500(self, owner: Caller) -> None:
        import base64

        for raw in (b'["a\\u0000b"]', b'["\\ud800"]', b"[1]"):
            cursor = base64.urlsafe_b64encode(raw).decode().rstrip("=")
            response = await owner.request("GET", owner.space_path("/secrets"), params={"cursor": cursor})
            assert response.status_code == 400, response.text
            assert _error(response)["code"] == "invalid_cursor"

    async def test_delete_is_204_then_404(self, owner: Caller) -> None:
        await put(owner, "old_key")
        deleted = await owner.request("DELETE", owner.space_path("/secrets/old_key"))
        assert deleted.status_code == 204
        assert (await owner.request("GET", owner.space_path("/secrets/old_key"))).status_code == 404
        again = await owner.request("DELETE", owner.space_path("/secrets/old_key"))
        assert again.status_code == 404
        assert _error(again)["code"] == "secret_not_found"


class TestRoles:
    async def test_members_list_and_read_but_cannot_set_or_delete(
        self, owner: Caller, factory: Factory
    ) -> None:
        await put(owner, "crm_token")
        member = await factory.member(owner, role="member")
        assert (await member.request("GET", member.space_path("/secrets"))).status_code == 200
        assert (await member.request("GET", member.space_path("/secrets/crm_token"))).status_code == 200
        refused_put = await put(member, "crm_token", value="member's value")
        assert refused_put.status_code == 403
        assert _error(refused_put)["code"] == "role_insufficient"
        refused_new = await put(member, "brand_new")
        assert refused_new.status_code == 403
        refused_delete = await member.request("DELETE", member.space_path("/secrets/crm_token"))
        assert refused_delete.status_code == 403
        listing = (await owner.request("GET", owner.space_path("/secrets"))).json()
        assert [item["name"] for item in listing["items"]] == ["crm_token"]
        assert listing["items"][0]["updated_by"] == owner.user_id

    async def test_admins_set_and_delete(self, owner: Caller, factory: Factory) -> None:
        admin = await factory.member(owner, role="admin")
        assert (await put(admin, "ops_key")).status_code == 201
        assert (await admin.request("DELETE", admin.space_path("/secrets/ops_key"))).status_code == 204

    async def test_without_a_token_is_401(self, owner: Caller) -> None:
        response = await owner.client.get(owner.space_path("/secrets"))
        assert response.status_code == 401


class TestOtherSpaces:
    async def test_another_spaces_secret_answers_404(self, owner: Caller, factory: Factory) -> None:
        await put(owner, "crm_token")
        stranger = await factory.owner(space="Other")
        for method in ("GET", "DELETE"):
            response = await stranger.request(method, owner.space_path("/secrets/crm_token"))
            assert response.status_code == 404, (method, response.text)
        listing = await stranger.request("GET", owner.space_path("/secrets"))
        assert listing.status_code == 404
        overwrite = await stranger.request(
            "PUT", owner.space_path("/secrets/crm_token"), json={"value": "overwrite"}
        )
        assert overwrite.status_code == 404

    async def test_the_same_name_in_two_spaces_is_two_secrets(self, owner: Caller, factory: Factory) -> None:
        other = await factory.owner(space="Other")
        assert (await put(owner, "crm_token")).status_code == 201
        assert (await put(other, "crm_token")).status_code == 201
        deleted = await other.request("DELETE", other.space_path("/secrets/crm_token"))
        assert deleted.status_code == 204
        assert (await owner.request("GET", owner.space_path("/secrets/crm_token"))).status_code == 200


class TestBadInput:
    @pytest.mark.parametrize("name", ["Upper", "with-dash", "dot.ted", "a" * 65, "spa%20ce", "%C3%A9t%C3%A9"])
    async def test_bad_names_are_422_pointing_at_the_name(self, owner: Caller, name: str) -> None:
        response = await put(owner, name)
        assert response.status_code == 422, response.text
        error = _error(response)
        assert error["code"] == "validation_failed"
        assert [detail["path"] for detail in error["details"]] == ["/path/name"]
        assert VALUE not in response.text

    async def test_bad_name_on_read_and_delete_is_422(self, owner: Caller) -> None:
        for method in ("GET", "DELETE"):
            response = await owner.request(method, owner.space_path("/secrets/Not_Valid"))
            assert response.status_code == 422

    async def test_the_longest_name_and_the_largest_value_are_accepted(self, owner: Caller) -> None:
        assert (await put(owner, "a" * 64, value="x" * 8192)).status_code == 201
        # 8 KB counts bytes: 4096 two-byte characters fit exactly.
        assert (await put(owner, "wide", value="é" * 4096)).status_code == 201
        assert (await put(owner, "one_byte", value="x")).status_code == 201

    @pytest.mark.parametrize(
        ("value", "needle"),
        [("", "must not be empty"), ("x" * 8193, "at most 8192 bytes"), ("é" * 4097, "at most 8192 bytes")],
    )
    async def test_empty_or_oversized_values_are_422(self, owner: Caller, value: str, needle: str) -> None:
        response = await put(owner, "sized", value=value)
        assert response.status_code == 422, response.text
        error = _error(response)
        assert error["details"][0]["path"] == "/value"
        assert needle in error["details"][0]["message"]
        assert (await owner.request("GET", owner.space_path("/secrets/sized"))).status_code == 404

    @pytest.mark.parametrize(
        "body",
        [
            {},
            {"value": 12345},
            {"value": None},
            {"value": ["a"]},
            {"value": VALUE, "extra": 1},
            {"value": VALUE, "description": "d" * 501},
        ],
    )
    async def test_malformed_bodies_are_422_and_never_echo_the_value(
        self, owner: Caller, body: dict[str, Any]
    ) -> None:
        response = await owner.request("PUT", owner.space_path("/secrets/shape"), json=body)
        assert response.status_code == 422, response.text
        assert _error(response)["code"] == "validation_failed"
        assert VALUE not in response.text
        assert "12345" not in response.text

    async def test_a_nul_in_the_value_is_a_clear_400(self, owner: Caller) -> None:
        response = await put(owner, "nul", value="a\u0000b")
        assert response.status_code == 400
        assert _error(response)["code"] == "invalid_text"
