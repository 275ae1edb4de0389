"""`approve … scope: always` grants one call of one step, and an edit cannot stretch it to another.

A member edits the definition after an admin approved `always`: the step calls another host, or
another step takes over the approved one. The next run asks again. Grants show their origin and can
be revoked. Real API, PostgreSQL, worker and loopback server.
"""

from __future__ import annotations

from typing import Any

from tests.governed.helpers import name
from tests.support.approvals import decide, set_modes, the_approval
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.runs import TERMINAL, definition, fire, http_step, wait_for

SETTLED = {"awaiting_approval", *TERMINAL}


async def _always(owner: Caller, loopback: Loopback, hits: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """An automation whose step `call` POSTs to the loopback by address, approved `always` once:
    (automation, the approval)."""
    automation = await owner.create_automation(definition(http_step("call", f"{loopback.url}/count/{hits}")))
    await set_modes(owner, {"http.request": "require_approval"}, automation["id"])
    await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
    run = await wait_for(owner, (await fire(owner, automation["id"]))["id"], SETTLED)
    approval = await the_approval(owner, run["id"])
    assert approval["target"] == f"POST {loopback.url}/count/{hits}"
    assert (await decide(owner, approval["id"], "approve", {"scope": "always"})).status_code == 200
    assert (await wait_for(owner, run["id"]))["status"] == "succeeded"
    return automation, approval


async def _edit(caller: Caller, automation_id: str, *steps: dict[str, Any]) -> dict[str, Any]:
    current = (await caller.request("GET", caller.space_path(f"/automations/{automation_id}"))).json()
    response = await caller.request(
        "PUT",
        caller.space_path(f"/automations/{automation_id}"),
        json={"definition": definition(*steps), "version": current["version"]},
    )
    assert response.status_code == 200, response.text
    saved: dict[str, Any] = response.json()
    return saved


async def _previewed_mode(caller: Caller, automation_id: str) -> tuple[str, str]:
    """(mode, mode_source) the preview of the automation's current version gives its step's call."""
    response = await caller.request(
        "POST", caller.space_path(f"/automations/{automation_id}/preview"), json={}
    )
    assert response.status_code == 200, response.text
    [step] = response.json()["steps"]
    [call] = step["calls"]
    return call["mode"], call["mode_source"]


def _by_name(loopback: Loopback) -> str:
    """The same loopback server under another host name than the address `loopback.url` uses."""
    return loopback.url.replace("127.0.0.1", "localhost")


class TestAnEditAsksAgain:
    async def test_the_same_call_after_an_unrelated_edit_still_runs(
        self, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        member = await factory.member(owner, "member")
        hits = name("kept")
        automation, _ = await _always(owner, loopback, hits)
        # The member changes the body only: same step, same target.
        step = http_step("call", f"{loopback.url}/count/{hits}")
        step["config"]["json"] = {"note": "edited"}
        await _edit(member, automation["id"], step)
        assert await _previewed_mode(owner, automation["id"]) == ("allow", "approval_grant")
        second = await wait_for(owner, (await fire(owner, automation["id"]))["id"])
        assert second["status"] == "succeeded", second
        assert loopback.hits[hits] == 2
        [invocation] = second["invocations"]
        assert (invocation["mode"], invocation["mode_source"]) == ("allow", "approval_grant")

    async def test_the_step_edited_to_call_another_host_asks_again(
        self, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        member = await factory.member(owner, "member")
        hits, elsewhere = name("host-a"), name("host-b")
        automation, _ = await _always(owner, loopback, hits)
        await _edit(member, automation["id"], http_step("call", f"{_by_name(loopback)}/count/{elsewhere}"))
        assert await _previewed_mode(owner, automation["id"]) == ("require_approval", "automation_override")
        second = await wait_for(owner, (await fire(owner, automation["id"]))["id"], SETTLED)
        assert loopback.hits[elsewhere] == 0, "the edited call ran on the old approval"
        assert (await the_approval(owner, second["id"]))["params"]["url"].startswith(_by_name(loopback))
        # The grant lapsed: even the original host asks again once the step is edited back.
        grants = await _grants(owner, automation["id"])
        assert [(g["status"], g["lapsed_version"]) for g in grants] == [("lapsed", 2)]

    async def test_another_step_does_not_inherit_the_grant(
        self, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        member = await factory.member(owner, "member")
        hits = name("renamed")
        automation, _ = await _always(owner, loopback, hits)
        await _edit(member, automation["id"], http_step("other", f"{loopback.url}/count/{hits}"))
        second = await wait_for(owner, (await fire(owner, automation["id"]))["id"], SETTLED)
        assert second["status"] == "awaiting_approval"
        assert loopback.hits[hits] == 1

    async def test_the_same_method_and_url_is_one_target_and_another_method_is_another(
        self, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        hits = name("method")
        automation, _ = await _always(owner, loopback, hits)
        step = http_step("call", f"{loopback.url}/count/{hits}")
        step["config"]["method"] = "PUT"
        await _edit(owner, automation["id"], step)
        second = await wait_for(owner, (await fire(owner, automation["id"]))["id"], SETTLED)
        assert second["status"] == "awaiting_approval"


async def _grants(caller: Caller, automation_id: str) -> list[dict[str, Any]]:
    response = await caller.request("GET", caller.space_path(f"/automations/{automation_id}/approval-grants"))
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items


class TestOriginAndRevoke:
    async def test_a_grant_shows_who_when_version_and_step_and_can_be_revoked(
        self, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        member = await factory.member(owner, "member")
        hits = name("origin")
        automation, approval = await _always(owner, loopback, hits)
        [grant] = await _grants(member, automation["id"])
        assert grant["granted_by"] == owner.user_id
        assert (grant["step_id"], grant["capability"], grant["definition_version"]) == (
            "call",
            "http.request",
            1,
        )
        assert grant["target"] == f"POST {loopback.url}/count/{hits}"
        assert grant["invocation_id"] == approval["id"]
        assert (grant["status"], grant["granted_at"] is not None) == ("active", True)
        # `always` no longer writes a standing override of the whole capability.
        got = (await owner.request("GET", owner.space_path(f"/automations/{automation['id']}"))).json()
        assert got["action_modes"] == {"http.request": "require_approval"}

        path = owner.space_path(f"/automations/{automation['id']}/approval-grants/{grant['id']}")
        as_member = await member.request("DELETE", path)
        assert (as_member.status_code, as_member.json()["error"]["code"]) == (403, "role_insufficient")
        assert (await owner.request("DELETE", path)).status_code == 204
        assert await _grants(owner, automation["id"]) == []
        again = await owner.request("DELETE", path)
        assert (again.status_code, again.json()["error"]["code"]) == (404, "approval_grant_not_found")
        second = await wait_for(owner, (await fire(owner, automation["id"]))["id"], SETTLED)
        assert second["status"] == "awaiting_approval", "a revoked grant covers nothing"

    async def test_grants_of_another_space_or_automation_are_404(
        self, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        stranger = await factory.owner("Elsewhere")
        automation, _ = await _always(owner, loopback, name("foreign"))
        [grant] = await _grants(owner, automation["id"])
        other = await owner.create_automation(definition(http_step("call", f"{loopback.url}/count/x")))
        wrong_automation = owner.space_path(f"/automations/{other['id']}/approval-grants/{grant['id']}")
        assert (await owner.request("DELETE", wrong_automation)).status_code == 404
        theirs = stranger.space_path(f"/automations/{automation['id']}/approval-grants/{grant['id']}")
        assert (await stranger.request("DELETE", theirs)).status_code == 404
        listing = await stranger.request(
            "GET", stranger.space_path(f"/automations/{automation['id']}/approval-grants")
        )
        assert listing.status_code == 404
        assert len(await _grants(owner, automation["id"])) == 1
