"""Spaces are walls: a caller never sees another space's resources (404, not 403)."""

from __future__ import annotations

import asyncio
import re
import uuid
from datetime import datetime, timedelta

from httpx import AsyncClient
from sqlalchemy import update

from app.persistence.base import utcnow
from app.persistence.models import Invitation
from app.persistence.transaction import transaction
from app.services.identity.signin import sign_in_service
from tests.support.factories import TEST_PASSWORD_COST, Caller, Factory, minimal_definition


def _space_routes(app) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """Every operation under a space, read from the published OpenAPI document."""
    return sorted(
        (method.upper(), path)
        for path, operations in app.openapi()["paths"].items()
        # Slack's interactivity URL is authenticated by Slack's signature, not by a member's token
        # (tests/governed/test_slack_approvals.py refuses other spaces' and unsigned requests).
        if "{space_id}" in path and not path.startswith("/api/v1/integrations/")
        for method in operations
    )


def _fill(path: str, space_id: str, automation_id: str, user_id: str, run_id: str, document_id: str) -> str:
    values = {
        "document_id": document_id,
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
        "path": "a",
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
    if path.endswith("/slack-approvals"):
        return {"channel": "C0INTRUDE", "bot_token_secret": "crm_token", "signing_secret_secret": "crm_token"}
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
    if path.endswith("/mcp"):
        return {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "greet", "arguments": {}},
        }
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
        document = await alice.request(
            "POST", alice.space_path("/documents"), json={"title": "Alice's notes", "text": "only for Alice"}
        )
        assert document.status_code == 201, document.text
        routes = _space_routes(app)
        assert len(routes) >= 15, routes
        assert ("POST", "/api/v1/spaces/{space_id}/mcp") in routes, "the space's MCP server is swept too"
        for method, template in routes:
            path = _fill(
                template, alice.space_id, automation["id"], alice.user_id, run["id"], document.json()["id"]
            )
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
        kept = await alice.request("GET", alice.space_path(f"/documents/{document.json()['id']}"))
        assert kept.status_code == 200
        assert kept.json()["title"] == "Alice's notes"

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
        assert added.json()["invitation"]["token"]
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
        assert added.json()["invitation"] is None
        assert added.json()["user_id"] == bob.user_id
        # Bob now sees both spaces with his one token
        spaces = (await bob.request("GET", "/api/v1/spaces")).json()["items"]
        assert {s["id"] for s in spaces} == {alice.space_id, bob.space_id}
        again = await alice.request("POST", alice.space_path("/members"), json={"email": email})
        assert again.status_code == 409

    async def test_the_adding_admin_gets_a_single_use_invitation_and_no_token_of_the_member(
        self, factory: Factory, client: AsyncClient
    ) -> None:
        owner = await factory.owner()
        added = await owner.request(
            "POST", owner.space_path("/members"), json={"email": "invitee@example.test"}
        )
        assert added.status_code == 201, added.text
        body = added.json()
        assert "token" not in body, "the admin must not see a token of the member"
        invitation = body["invitation"]
        assert invitation["url"] == f"/invitation#{invitation['token']}"
        lifetime = datetime.fromisoformat(invitation["expires_at"]) - utcnow()
        assert timedelta(hours=71) < lifetime <= timedelta(hours=72)
        # The invitation is no API token: it can neither mint a token nor set a password through /me.
        held = Caller(client, invitation["token"], owner.space_id, body["user_id"])
        assert (await held.request("POST", "/api/v1/tokens", json={"name": "forever"})).status_code == 401
        forced = await held.request("PUT", "/api/v1/me/password", json={"password": "chosen by the admin"})
        assert forced.status_code == 401
        assert (await held.request("GET", held.space_path("/automations"))).status_code == 401

    async def test_an_invitation_sets_a_password_once_and_signs_the_member_in(
        self, factory: Factory, client: AsyncClient
    ) -> None:
        owner = await factory.owner()
        added = await owner.request(
            "POST", owner.space_path("/members"), json={"email": "joiner@example.test", "role": "admin"}
        )
        secret = added.json()["invitation"]["token"]
        weak = await client.post("/api/v1/invitations/accept", json={"token": secret, "password": "short"})
        assert weak.status_code == 400
        assert weak.json()["error"]["code"] == "weak_password"
        assert weak.json()["error"]["details"][0]["path"] == "/password"
        accepted = await client.post(
            "/api/v1/invitations/accept", json={"token": secret, "password": "the joiner's own passphrase"}
        )
        assert accepted.status_code == 201, accepted.text
        assert accepted.json()["user"]["email"] == "joiner@example.test"
        assert accepted.json()["user"]["has_password"] is True
        member = Caller(client, accepted.json()["token"], owner.space_id, added.json()["user_id"])
        assert (await member.request("GET", member.space_path("/automations"))).status_code == 200
        again = await client.post(
            "/api/v1/invitations/accept", json={"token": secret, "password": "another passphrase here"}
        )
        assert again.status_code == 401
        assert again.json()["error"]["code"] == "invalid_invitation"
        signed = await client.post(
            "/api/v1/auth/sessions",
            json={"email": "joiner@example.test", "password": "the joiner's own passphrase"},
        )
        assert signed.status_code == 201

    async def test_expired_unknown_and_malformed_invitations_are_refused_alike(
        self, app, factory: Factory, client: AsyncClient
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        added = await owner.request("POST", owner.space_path("/members"), json={"email": "late@example.test"})
        secret = added.json()["invitation"]["token"]
        async with app.state.sessionmaker() as session:
            await session.execute(
                update(Invitation)
                .where(Invitation.user_id == uuid.UUID(added.json()["user_id"]))
                .values(expires_at=utcnow() - timedelta(seconds=1))
            )
            await session.commit()
        password = "a perfectly good passphrase"
        answers = [
            await client.post("/api/v1/invitations/accept", json={"token": token, "password": password})
            for token in (secret, "ainv_" + "A" * 43, "not-an-invitation")
        ]
        assert [a.status_code for a in answers] == [401, 401, 401]
        assert {a.json()["error"]["code"] for a in answers} == {"invalid_invitation"}
        for bad in ({}, {"token": secret}, {"token": 3, "password": []}):
            assert (await client.post("/api/v1/invitations/accept", json=bad)).status_code == 422

    async def test_an_expired_invitation_is_renewed_by_an_admin_of_the_space_only(
        self, app, factory: Factory, client: AsyncClient
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        stranger = await factory.owner()
        added = await owner.request("POST", owner.space_path("/members"), json={"email": "slow@example.test"})
        user_id = added.json()["user_id"]
        first = added.json()["invitation"]["token"]
        elsewhere = await stranger.request("POST", stranger.space_path(f"/members/{user_id}/invitation"))
        assert elsewhere.status_code == 404
        renewed = await owner.request("POST", owner.space_path(f"/members/{user_id}/invitation"))
        assert renewed.status_code == 201, renewed.text
        second = renewed.json()["token"]
        password = "finally joining the space"
        stale = await client.post("/api/v1/invitations/accept", json={"token": first, "password": password})
        assert stale.status_code == 401, "a renewal withdraws the earlier invitation"
        accepted = await client.post(
            "/api/v1/invitations/accept", json={"token": second, "password": password}
        )
        assert accepted.status_code == 201
        after = await owner.request("POST", owner.space_path(f"/members/{user_id}/invitation"))
        assert after.status_code == 409
        assert after.json()["error"]["code"] == "member_has_signed_in"
        existing = await owner.request("POST", owner.space_path(f"/members/{stranger.user_id}/invitation"))
        assert existing.status_code == 404

    async def test_a_password_set_by_the_operator_closes_the_invitation(
        self, app, factory: Factory, client: AsyncClient
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        added = await owner.request(
            "POST", owner.space_path("/members"), json={"email": "reset@example.test"}
        )
        async with transaction(app.state.sessionmaker, app.state.send_job) as session:
            await sign_in_service.set_password_by_email(
                session, "reset@example.test", "set by the operator", cost=TEST_PASSWORD_COST
            )
        late = await client.post(
            "/api/v1/invitations/accept",
            json={"token": added.json()["invitation"]["token"], "password": "taken over by the admin"},
        )
        assert late.status_code == 401
        assert late.json()["error"]["code"] == "invalid_invitation"

    async def test_no_renewal_for_a_user_another_space_has_let_in(self, factory: Factory) -> None:
        owner = await factory.owner()
        other = await factory.owner()
        added = await owner.request("POST", owner.space_path("/members"), json={"email": "both@example.test"})
        user_id = added.json()["user_id"]
        joined = await other.request(
            "POST", other.space_path("/members"), json={"email": "both@example.test"}
        )
        assert joined.status_code == 201
        assert joined.json()["invitation"] is None
        for admin in (owner, other):
            refused = await admin.request("POST", admin.space_path(f"/members/{user_id}/invitation"))
            assert refused.status_code == 409
            assert refused.json()["error"]["code"] == "member_not_invited_here"

    async def test_two_acceptances_of_one_invitation_at_once_sign_in_only_one(
        self, factory: Factory, client: AsyncClient
    ) -> None:
        owner = await factory.owner()
        added = await owner.request(
            "POST", owner.space_path("/members"), json={"email": "twice@example.test"}
        )
        secret = added.json()["invitation"]["token"]
        answers = await asyncio.gather(
            *(
                client.post(
                    "/api/v1/invitations/accept", json={"token": secret, "password": f"passphrase number {i}"}
                )
                for i in range(2)
            )
        )
        assert sorted(a.status_code for a in answers) == [201, 401]

    async def test_create_space_makes_caller_owner(self, factory: Factory) -> None:
        alice = await factory.owner()
        created = await alice.request("POST", "/api/v1/spaces", json={"name": "Second"})
        assert created.status_code == 201
        space = (await alice.request("GET", f"/api/v1/spaces/{created.json()['id']}")).json()
        assert space["role"] == "owner"
        assert space["name"] == "Second"
