"""The `as_code` token scope: in the one space it names, what `automations export` and `apply` call,
and nothing else."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.support.factories import Caller, Factory, minimal_definition


async def _ci(owner: Caller, space_id: str | None = None) -> Caller:
    """A caller holding a token of the owner's limited to `as_code` in a space (the owner's own)."""
    made = await owner.request(
        "POST",
        "/api/v1/tokens",
        json={"name": "ci", "scopes": {"as_code": {"space": space_id or owner.space_id}}},
    )
    assert made.status_code == 201, made.text
    assert made.json()["scopes"] == {"as_code": {"space": space_id or owner.space_id}}
    return Caller(owner.client, made.json()["token"], owner.space_id, owner.user_id)


def _code(response: Any) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"] if response.status_code >= 400 else ""


class TestWhatItOpens:
    async def test_export_and_apply_calls_succeed_in_its_space(self, factory: Factory) -> None:
        owner = await factory.owner()
        ci = await _ci(owner)
        assert (await ci.request("GET", ci.space_path())).json()["role"] == "owner"
        valid = await ci.request(
            "POST", ci.space_path("/automations/validate"), json={"definition": minimal_definition()}
        )
        assert (valid.status_code, valid.json()["valid"]) == (200, True)
        made = await ci.create_automation(minimal_definition(name="From CI"))
        path = ci.space_path(f"/automations/{made['id']}")
        updated = await ci.request(
            "PUT",
            path,
            json={"definition": minimal_definition(name="From CI", description="Again.")},
            headers={"If-Match": '"1"'},
        )
        assert updated.status_code == 200, updated.text
        modes = await ci.request("PUT", f"{path}/action-modes", json={"modes": {"http_request": "deny"}})
        assert modes.status_code == 200, modes.text
        for method, suffix in (
            ("GET", ""),
            ("GET", "/action-modes"),
            ("GET", "/approval-grants"),
            ("POST", "/activate"),
            ("POST", "/pause"),
        ):
            response = await ci.request(method, path + suffix)
            assert response.status_code == 200, (method, suffix, response.text)
        listed = await ci.request("GET", ci.space_path("/automations"))
        assert [item["id"] for item in listed.json()["items"]] == [made["id"]]

    async def test_a_stale_version_is_still_refused(self, factory: Factory) -> None:
        owner = await factory.owner()
        ci = await _ci(owner)
        made = await ci.create_automation(minimal_definition(name="Stale"))
        path = ci.space_path(f"/automations/{made['id']}")
        body = {"definition": minimal_definition(name="Stale", description="x")}
        assert _code(await ci.request("PUT", path, json=body)) == (428, "precondition_required")
        assert (await ci.request("PUT", path, json=body, headers={"If-Match": '"1"'})).status_code == 200
        assert _code(await ci.request("PUT", path, json=body, headers={"If-Match": '"1"'})) == (
            409,
            "version_conflict",
        )

    async def test_it_never_does_more_than_its_user_may(self, factory: Factory) -> None:
        owner = await factory.owner()
        member = await factory.member(owner)
        ci = await _ci(member)
        made = await ci.create_automation(minimal_definition(name="Member's"))
        modes = await ci.request(
            "PUT",
            ci.space_path(f"/automations/{made['id']}/action-modes"),
            json={"modes": {"http_request": "allow"}},
        )
        assert _code(modes) == (403, "role_insufficient")


class TestWhatItRefuses:
    @pytest.mark.parametrize(
        ("method", "suffix", "body"),
        [
            ("GET", "/secrets", None),
            ("PUT", "/secrets/stolen", {"value": "x"}),
            ("GET", "/members", None),
            ("POST", "/members", {"email": "new@example.test", "role": "admin"}),
            ("PATCH", "", {"name": "Renamed"}),
            ("PUT", "/action-modes", {"modes": {"http_request": "allow"}}),
            ("GET", "/approvals", None),
            ("POST", "/approvals/{uuid}/approve", None),
            ("POST", "/approvals/{uuid}/deny", None),
            ("GET", "/runs", None),
            ("POST", "/automations/{automation}/runs", None),
            ("POST", "/automations/{automation}/archive", None),
            ("POST", "/automations/{automation}/unarchive", None),
            ("DELETE", "/automations/{automation}/approval-grants/{uuid}", None),
            ("GET", "/automations/{automation}/versions", None),
        ],
    )
    async def test_routes_of_its_space_outside_export_and_apply(
        self, factory: Factory, method: str, suffix: str, body: dict[str, Any] | None
    ) -> None:
        owner = await factory.owner()
        made = await owner.create_automation(minimal_definition(name="Kept"))
        ci = await _ci(owner)
        path = ci.space_path(suffix.format(uuid=uuid.uuid4(), automation=made["id"]))
        response = await ci.request(method, path, json=body)
        assert _code(response) == (403, "token_scope_insufficient"), response.text
        assert "as_code" in response.json()["error"]["message"]

    @pytest.mark.parametrize(
        ("method", "path", "body"),
        [
            ("GET", "/api/v1/tokens", None),
            ("POST", "/api/v1/tokens", {"name": "more"}),
            ("GET", "/api/v1/me", None),
            ("GET", "/api/v1/spaces", None),
            ("POST", "/api/v1/spaces", {"name": "Another"}),
        ],
    )
    async def test_routes_outside_a_space(
        self, factory: Factory, method: str, path: str, body: dict[str, Any] | None
    ) -> None:
        ci = await _ci(await factory.owner())
        assert _code(await ci.request(method, path, json=body)) == (403, "token_scope_insufficient")

    async def test_another_space_of_its_user(self, factory: Factory) -> None:
        owner = await factory.owner()
        second = await owner.request("POST", "/api/v1/spaces", json={"name": "Second"})
        assert second.status_code == 201, second.text
        ci = await _ci(owner)
        other = ci.space_path("/automations", space_id=second.json()["id"])
        assert _code(await ci.request("GET", other)) == (403, "token_scope_other_space")
        made = await ci.request("POST", other, json={"definition": minimal_definition()})
        assert _code(made) == (403, "token_scope_other_space")

    async def test_a_token_for_a_space_its_user_is_not_in_is_not_made(self, factory: Factory) -> None:
        owner = await factory.owner()
        stranger = await factory.owner("Theirs")
        made = await owner.request(
            "POST", "/api/v1/tokens", json={"name": "ci", "scopes": {"as_code": {"space": stranger.space_id}}}
        )
        assert _code(made) == (422, "scope_space_not_found")
        assert made.json()["error"]["details"][0]["path"] == "/scopes/as_code/space"

    async def test_a_revoked_token_is_refused(self, factory: Factory) -> None:
        owner = await factory.owner()
        ci = await _ci(owner)
        tokens = (await owner.request("GET", "/api/v1/tokens")).json()["items"]
        (scoped,) = [token for token in tokens if token["scopes"]]
        revoked = await owner.request("POST", f"/api/v1/tokens/{scoped['id']}/revoke")
        assert revoked.status_code == 200, revoked.text
        assert _code(await ci.request("GET", ci.space_path("/automations"))) == (401, "invalid_token")
