"""Every change to who may call what is recorded: who, when, before and after, listed to admins.

Covers the approval settings (`forbid_self_approval` among them), space and automation action modes,
an `always_space` approval, and the grant and revocation of an `always` approval.
"""

from __future__ import annotations

from typing import Any

from tests.governed.helpers import name, waiting_run
from tests.governed.test_standing_grants import _always, _grants
from tests.support.approvals import decide, set_modes, the_approval
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.runs import definition, http_step


async def _changes(caller: Caller, **params: Any) -> list[dict[str, Any]]:
    response = await caller.request("GET", caller.space_path("/policy-changes"), params=params)
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items


class TestRecorded:
    async def test_settings_and_modes_record_who_before_and_after(self, factory: Factory) -> None:
        owner = await factory.owner()
        admin = await factory.member(owner, "admin")
        settings = {"approval_ttl_seconds": 3600, "forbid_self_approval": True}
        assert (
            await admin.request("PUT", admin.space_path("/approval-settings"), json=settings)
        ).status_code == 200
        # The same settings again change nothing, and record nothing.
        assert (
            await owner.request("PUT", owner.space_path("/approval-settings"), json=settings)
        ).status_code == 200
        await set_modes(owner, {"http.*": "deny"})
        automation = await owner.create_automation(definition(http_step("call", "https://example.com/")))
        await set_modes(owner, {"http.request": "allow"}, automation["id"])

        automation_change, space_change, settings_change = await _changes(owner)
        assert (settings_change["kind"], settings_change["actor_id"]) == ("approval_settings", admin.user_id)
        assert settings_change["before"] == {"approval_ttl_seconds": 86400, "forbid_self_approval": False}
        assert settings_change["after"] == settings
        assert settings_change["automation_id"] is None
        assert (space_change["kind"], space_change["before"], space_change["after"]) == (
            "space_modes",
            {},
            {"http.*": "deny"},
        )
        assert (automation_change["kind"], automation_change["automation_id"]) == (
            "automation_modes",
            automation["id"],
        )
        assert (automation_change["before"], automation_change["after"]) == ({}, {"http.request": "allow"})
        assert automation_change["actor_id"] == owner.user_id
        assert automation_change["created_at"] >= settings_change["created_at"]
        only = await _changes(owner, automation_id=automation["id"])
        assert [c["id"] for c in only] == [automation_change["id"]]

    async def test_always_grants_revocations_and_always_space_are_recorded(
        self, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        automation, approval = await _always(owner, loopback, name("audited"))
        [grant] = await _grants(owner, automation["id"])
        path = owner.space_path(f"/automations/{automation['id']}/approval-grants/{grant['id']}")
        assert (await owner.request("DELETE", path)).status_code == 204

        _, run = await waiting_run(owner, loopback, name("space"))
        pending = await the_approval(owner, run["id"])
        assert (await decide(owner, pending["id"], "approve", {"scope": "always_space"})).status_code == 200

        kinds = ("approval_grant_added", "approval_grant_revoked", "space_modes")
        space, revoked, granted = [c for c in await _changes(owner) if c["kind"] in kinds]
        assert (granted["kind"], granted["before"]) == ("approval_grant_added", None)
        assert granted["after"]["invocation_id"] == approval["id"]
        assert (granted["after"]["step_id"], granted["after"]["definition_version"]) == ("call", 1)
        assert (revoked["kind"], revoked["after"], revoked["before"]["id"]) == (
            "approval_grant_revoked",
            None,
            grant["id"],
        )
        assert (space["kind"], space["after"], space["actor_id"]) == (
            "space_modes",
            {"http.request": "allow"},
            owner.user_id,
        )


class TestAccess:
    async def test_only_admins_read_it_in_pages_and_a_bad_cursor_is_400(self, factory: Factory) -> None:
        owner = await factory.owner()
        member = await factory.member(owner, "member")
        stranger = await factory.owner("Elsewhere")
        for ttl in (120, 180, 240):
            body = {"approval_ttl_seconds": ttl, "forbid_self_approval": False}
            assert (
                await owner.request("PUT", owner.space_path("/approval-settings"), json=body)
            ).status_code == 200

        first = await owner.request("GET", owner.space_path("/policy-changes"), params={"limit": 2})
        assert [c["after"]["approval_ttl_seconds"] for c in first.json()["items"]] == [240, 180]
        cursor = first.json()["next_cursor"]
        second = await owner.request(
            "GET", owner.space_path("/policy-changes"), params={"limit": 2, "cursor": cursor}
        )
        assert [c["after"]["approval_ttl_seconds"] for c in second.json()["items"]] == [120]
        assert second.json()["next_cursor"] is None

        as_member = await member.request("GET", member.space_path("/policy-changes"))
        assert (as_member.status_code, as_member.json()["error"]["code"]) == (403, "role_insufficient")
        elsewhere = await stranger.request("GET", stranger.space_path("/policy-changes", owner.space_id))
        assert elsewhere.status_code == 404
        assert await _changes(stranger) == []
        bad = await owner.request("GET", owner.space_path("/policy-changes"), params={"cursor": "nonsense"})
        assert (bad.status_code, bad.json()["error"]["code"]) == (400, "invalid_cursor")
        not_a_uuid = await owner.request(
            "GET", owner.space_path("/policy-changes"), params={"automation_id": "x"}
        )
        assert not_a_uuid.status_code == 422
