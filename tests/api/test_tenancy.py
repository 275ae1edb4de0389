"""Spaces are walls: a caller never sees another space's resources (404, not 403)."""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta

from tests.support.factories import Factory, minimal_definition


def _space_routes(app) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """Every operation under a space, read from the published OpenAPI document."""
    return sorted(
        (method.upper(), path)
        for path, operations in app.openapi()["paths"].items()
        if "{space_id}" in path
        for method in operations
    )


def _fill(path: str, space_id: str, automation_id: str, user_id: str, run_id: str) -> str:
    values = {
        "space_id": space_id,
        "automation_id": automation_id,
        "user_id": user_id,
        "version": "1",
        "action": "archive",
        "run_id": run_id,
        "event_id": str(uuid.uuid4()),
        "trigger_id": str(uuid.uuid4()),
        "name": "crm_token",
        "draft_id": uuid.uuid4().hex,
        "endpoint_id": str(uuid.uuid4()),
        "delivery_id": str(uuid.uuid4()),
        "approval_id": str(uuid.uuid4()),
        "grant_id": str(uuid.uuid4()),
        "invocation_id": str(uuid.uuid4()),
        "connection_id": str(uuid.uuid4()),
        "artifact_id": str(uuid.uuid4()),
        "database_id": str(uuid.uuid4()),
        "key": "seen/1",
        "plugin_id": "uptime",
    }
    return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)


def _body_for(method: str, path: str) -> dict | None:
    if method not in {"POST", "PUT", "PATCH"}:
        return None
    if path.endswith("/members"):
        return {"email": "intruder@example.test", "role": "member"}
    if path.endswith("/action-modes"):
        return {"modes": {"http.request": "allow"}}
    if path.endswith("/approval-settings"):
        return {"approval_ttl_seconds": 3600, "forbid_self_approval": False}
    if path.endswith("/members/{user_id}"):
        return {"role": "admin"}
    if path.endswith(("/automations", "/automations/{automation_id}")):
        return {"definition": minimal_definition(name="Intruder"), "version": 1}
    if path == "/api/v1/spaces/{space_id}":
        return {"name": "Taken over"}
    if path.endswith("/events"):
        return {"event_type": "intruder.event", "payload": {}}
    if path.endswith("/secrets/{name}"):
        return {"value": "intruder's value"}
    if path.endswith("/drafts"):
        return {"request": "Post everything to the intruder"}
    if path.endswith("/drafts/{draft_id}"):
        return {"definition": minimal_definition(name="Intruder")}
    if path.endswith("/webhook-endpoints"):
        return {"url": "https://intruder.example.com/hook", "events": ["automation.run.*"]}
    if path.endswith("/mcp/connections"):
        return {"name": "Intruder", "url": "https://intruder.example.com/mcp", "tool_prefix": "intruder"}
    if path.endswith("/tools/{name}"):
        return {"risk": "read"}
    if path.endswith("/databases"):
        return {"name": "intruder", "dsn_secret": "crm_token", "tool_prefix": "intruder"}
    if path.endswith("/plugins/{plugin_id}"):
        return {"enabled": True}
    if path.endswith("/messages"):
        return {"message": "send it to the intruder"}
    if path.endswith("/kv/{key}"):
        return {"value": "intruder's state"}
    if path.endswith("/automations/preview"):
        return {"definition": minimal_definition(name="Intruder")}
    return None


class TestIsolation:
    async def test_every_space_route_answers_404_to_another_space(self, app, factory: Factory) -> None:
        alice = await factory.owner("Alice's")
        bob = await factory.owner("Bob's")
        automation = await alice.create_automation()
        run = (await alice.request("POST", alice.space_path(f"/automations/{automation['id']}/runs"))).json()
        secret = await alice.request("PUT", alice.space_path("/secrets/crm_token"), json={"value": "alice's"})
        routes = _space_routes(app)
        assert len(routes) >= 15, routes
        for method, template in routes:
            path = _fill(template, alice.space_id, automation["id"], alice.user_id, run["id"])
            response = await bob.request(method, path, json=_body_for(method, template))
            assert response.status_code == 404, (method, template, response.status_code, response.text)
            assert response.json()["error"]["code"] == "space_not_found"
        # and nothing changed on Alice's side
        mine = await alice.request("GET", alice.space_path(f"/automations/{automation['id']}"))
        assert mine.json() == automation
        runs = (await alice.request("GET", alice.space_path("/runs"))).json()["items"]
        assert [r["id"] for r in runs] == [run["id"]], "no run was started by the intruder"
        assert runs[0]["cancel_requested"] is False
        members = (await alice.request("GET", alice.space_path("/members"))).json()["items"]
        assert [m["user_id"] for m in members] == [alice.user_id]
        assert (await alice.request("GET", alice.space_path("/secrets/crm_token"))).json() == secret.json()

    async def test_automation_of_another_space_via_own_space_is_404(self, factory: Factory) -> None:
        alice = await factory.owner()
        bob = await factory.owner()
        automation = await alice.create_automation()
        response = await bob.request("GET", bob.space_path(f"/automations/{automation['id']}"))
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "automation_not_found"
        response = await bob.request(
            "PUT",
            bob.space_path(f"/automations/{automation['id']}"),
            json={"definition": minimal_definition(), "version": 1},
        )
        assert response.status_code == 404

    async def test_ids_of_another_space_answer_404_through_ones_own_space(self, factory: Factory) -> None:
        alice = await factory.owner()
        bob = await factory.owner()
        theirs = await alice.create_automation(minimal_definition(triggers=[{"type": "webhook"}]))
        mine = await bob.create_automation(minimal_definition(triggers=[{"type": "webhook"}]))
        run = (await alice.request("POST", alice.space_path(f"/automations/{theirs['id']}/runs"))).json()
        event = await alice.request(
            "POST", alice.space_path("/events"), json={"event_type": "a.b", "payload": {"x": 1}}
        )
        trigger = theirs["triggers"][0]["id"]
        probes = [
            ("GET", f"/runs/{run['id']}"),
            ("POST", f"/runs/{run['id']}/cancel"),
            ("GET", f"/events/{event.json()['id']}"),
            ("GET", f"/automations/{theirs['id']}/versions"),
            ("GET", f"/automations/{theirs['id']}/versions/1"),
            ("POST", f"/automations/{theirs['id']}/versions/1/restore"),
            ("POST", f"/automations/{theirs['id']}/runs"),
            ("POST", f"/automations/{theirs['id']}/activate"),
            ("POST", f"/automations/{theirs['id']}/preview"),
            ("POST", f"/runs/{run['id']}/replay"),
            ("GET", f"/automations/{theirs['id']}/kv"),
            ("POST", f"/automations/{theirs['id']}/triggers/{trigger}/rotate"),
            ("POST", f"/automations/{mine['id']}/triggers/{trigger}/revoke"),
            ("PATCH", f"/members/{alice.user_id}"),
            ("DELETE", f"/members/{alice.user_id}"),
        ]
        for method, suffix in probes:
            body = {"role": "member"} if method == "PATCH" else None
            response = await bob.request(method, bob.space_path(suffix), json=body)
            assert response.status_code == 404, (method, suffix, response.text)
        listed = await bob.request("GET", bob.space_path("/runs"), params={"automation_id": theirs["id"]})
        assert listed.json()["items"] == []
        assert (await alice.request("GET", alice.space_path(f"/runs/{run['id']}"))).json()[
            "status"
        ] != "cancelled"
        old_token = theirs["triggers"][0]["token"]
        await alice.request("POST", alice.space_path(f"/automations/{theirs['id']}/activate"))
        fired = await alice.client.post(
            f"/api/v1/automations/{theirs['id']}/fire",
            json={},
            headers={"Authorization": f"Bearer {old_token}"},
        )
        assert fired.status_code == 202, "the token was neither rotated nor revoked by the intruder"

    async def test_unknown_space_is_404(self, factory: Factory) -> None:
        alice = await factory.owner()
        response = await alice.request("GET", f"/api/v1/spaces/{uuid.uuid4()}/automations")
        assert response.status_code == 404

    async def test_listing_spaces_shows_only_memberships(self, factory: Factory) -> None:
        alice = await factory.owner("A")
        await factory.owner("B")
        spaces = (await alice.request("GET", "/api/v1/spaces")).json()["items"]
        assert [s["id"] for s in spaces] == [alice.space_id]


class TestRoles:
    async def test_member_can_write_automations_but_not_manage_members(self, factory: Factory) -> None:
        owner = await factory.owner()
        member = await factory.member(owner, "member")
        assert (await member.create_automation())["space_id"] == owner.space_id
        response = await member.request(
            "POST", member.space_path("/members"), json={"email": "x@example.test", "role": "member"}
        )
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "role_insufficient"
        assert (await member.request("PATCH", member.space_path(), json={"name": "Mine"})).status_code == 403

    async def test_admin_manages_members_but_not_owners(self, factory: Factory) -> None:
        owner = await factory.owner()
        admin = await factory.member(owner, "admin")
        added = await admin.request(
            "POST", admin.space_path("/members"), json={"email": "new@example.test", "role": "member"}
        )
        assert added.status_code == 201
        assert added.json()["token"].startswith("aut_")
        promote = await admin.request(
            "PATCH", admin.space_path(f"/members/{added.json()['user_id']}"), json={"role": "owner"}
        )
        assert promote.status_code == 403
        demote_owner = await admin.request(
            "PATCH", admin.space_path(f"/members/{owner.user_id}"), json={"role": "member"}
        )
        assert demote_owner.status_code == 403

    async def test_removing_others_needs_the_role_that_manages_them(self, factory: Factory) -> None:
        owner = await factory.owner()
        admin = await factory.member(owner, "admin")
        member = await factory.member(owner, "member")
        other = await factory.member(owner, "member")
        refused = [
            (member, other.user_id),
            (member, admin.user_id),
            (member, owner.user_id),
            (admin, owner.user_id),
        ]
        for caller, target in refused:
            response = await caller.request("DELETE", caller.space_path(f"/members/{target}"))
            assert response.status_code == 403, (caller.user_id, target)
            assert response.json()["error"]["code"] == "role_insufficient"
        assert (
            await member.request(
                "PATCH", member.space_path(f"/members/{member.user_id}"), json={"role": "admin"}
            )
        ).status_code == 403
        assert (
            await admin.request("DELETE", admin.space_path(f"/members/{other.user_id}"))
        ).status_code == 204
        assert (
            await member.request("DELETE", member.space_path(f"/members/{member.user_id}"))
        ).status_code == 204
        remaining = (await owner.request("GET", owner.space_path("/members"))).json()["items"]
        assert {m["user_id"] for m in remaining} == {owner.user_id, admin.user_id}

    async def test_last_owner_cannot_leave_or_be_demoted(self, factory: Factory) -> None:
        owner = await factory.owner()
        leave = await owner.request("DELETE", owner.space_path(f"/members/{owner.user_id}"))
        assert leave.status_code == 409
        assert leave.json()["error"]["code"] == "last_owner"
        demote = await owner.request(
            "PATCH", owner.space_path(f"/members/{owner.user_id}"), json={"role": "admin"}
        )
        assert demote.status_code == 409

    async def test_removed_member_loses_access_with_404(self, factory: Factory) -> None:
        owner = await factory.owner()
        member = await factory.member(owner)
        assert (
            await owner.request("DELETE", owner.space_path(f"/members/{member.user_id}"))
        ).status_code == 204
        assert (await member.request("GET", member.space_path("/automations"))).status_code == 404

    async def test_existing_user_is_added_without_a_new_token(self, factory: Factory) -> None:
        alice = await factory.owner()
        bob = await factory.owner()
        email = (await bob.request("GET", bob.space_path("/members"))).json()["items"][0]["email"]
        added = await alice.request("POST", alice.space_path("/members"), json={"email": email.upper()})
        assert added.status_code == 201
        assert added.json()["token"] is None
        assert added.json()["user_id"] == bob.user_id
        # Bob now sees both spaces with his one token
        spaces = (await bob.request("GET", "/api/v1/spaces")).json()["items"]
        assert {s["id"] for s in spaces} == {alice.space_id, bob.space_id}
        again = await alice.request("POST", alice.space_path("/members"), json={"email": email})
        assert again.status_code == 409

    async def test_first_token_seen_by_the_adding_admin_expires_within_a_week(self, factory: Factory) -> None:
        owner = await factory.owner()
        member = await factory.member(owner)
        (first,) = (await member.request("GET", "/api/v1/tokens")).json()["items"]
        created, expires = (datetime.fromisoformat(first[key]) for key in ("created_at", "expires_at"))
        assert expires - created == timedelta(days=7)
        own = await member.request("POST", "/api/v1/tokens", json={"name": "mine"})
        assert own.status_code == 201
        assert own.json()["expires_at"] is None, "the user's own tokens keep the lifetime they ask for"
        revoked = await member.request("POST", f"/api/v1/tokens/{first['id']}/revoke")
        assert revoked.status_code == 200
        assert (await member.request("GET", "/api/v1/spaces")).status_code == 401

    async def test_create_space_makes_caller_owner(self, factory: Factory) -> None:
        alice = await factory.owner()
        created = await alice.request("POST", "/api/v1/spaces", json={"name": "Second"})
        assert created.status_code == 201
        space = (await alice.request("GET", f"/api/v1/spaces/{created.json()['id']}")).json()
        assert space["role"] == "owner"
        assert space["name"] == "Second"
