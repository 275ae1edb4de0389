"""Mode rules over a call's arguments, end to end: saved with pointers, decided first-match, recorded.

Real API, PostgreSQL, Redis, Celery worker and beat; the outside world is the loopback server.
"""

from __future__ import annotations

from typing import Any

from tests.governed.helpers import name
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.runs import definition, fire, http_step, wait_for

DELETE_DENIED = {"capability": "http.request", "when": {"method": {"in": ["DELETE"]}}, "mode": "deny"}


async def put_modes(caller: Caller, body: dict[str, Any], automation_id: str | None = None) -> Any:
    path = f"/automations/{automation_id}/action-modes" if automation_id else "/action-modes"
    return await caller.request("PUT", caller.space_path(path), json=body)


async def active(caller: Caller, *steps: dict[str, Any]) -> str:
    automation = await caller.create_automation(definition(*steps))
    await caller.request("POST", caller.space_path(f"/automations/{automation['id']}/activate"))
    return str(automation["id"])


def method_step(step_id: str, url: str, method: str) -> dict[str, Any]:
    step = http_step(step_id, url)
    step["config"]["method"] = method
    return step


class TestRulesDecideByArguments:
    async def test_a_delete_is_denied_by_the_automation_rule_and_a_post_runs(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hits = name("rules")
        post = await active(owner, method_step("post", f"{loopback.url}/count/{hits}", "POST"))
        delete = await active(owner, method_step("drop", f"{loopback.url}/count/{hits}", "DELETE"))
        for automation_id in (post, delete):
            saved = await put_modes(owner, {"modes": {}, "rules": [DELETE_DENIED]}, automation_id)
            assert saved.status_code == 200, saved.text
            assert saved.json() == {"modes": {}, "rules": [DELETE_DENIED]}

        ran = await wait_for(owner, (await fire(owner, post))["id"])
        assert ran["status"] == "succeeded", ran
        [allowed] = ran["invocations"]
        assert (allowed["mode"], allowed["mode_source"], allowed["mode_rule"]) == (
            "allow",
            "inferred_default",
            None,
        )

        refused = await wait_for(owner, (await fire(owner, delete))["id"])
        assert refused["status"] == "failed"
        [denied] = refused["invocations"]
        assert (denied["status"], denied["mode"], denied["mode_source"]) == (
            "denied",
            "deny",
            "automation_rule",
        )
        assert denied["mode_rule"] == {"level": "automation", "index": 0}
        assert denied["error"]["code"] == "action_denied"
        assert loopback.hits[hits] == 1

    async def test_first_match_wins_and_the_automation_level_comes_before_the_space(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hits = name("order")
        automation_id = await active(owner, method_step("drop", f"{loopback.url}/count/{hits}", "DELETE"))
        space_rules = [{"capability": "http.*", "mode": "deny"}]
        assert (await put_modes(owner, {"modes": {}, "rules": space_rules})).status_code == 200
        allow_first = [
            {"capability": "http.request", "when": {"url": {"contains": "/count/"}}, "mode": "allow"},
            DELETE_DENIED,
        ]
        assert (await put_modes(owner, {"modes": {}, "rules": allow_first}, automation_id)).status_code == 200
        done = await wait_for(owner, (await fire(owner, automation_id))["id"])
        assert done["status"] == "succeeded", done
        assert done["invocations"][0]["mode_rule"] == {"level": "automation", "index": 0}

        # Without automation rules, the space's rule decides.
        assert (await put_modes(owner, {"modes": {}, "rules": []}, automation_id)).status_code == 200
        refused = await wait_for(owner, (await fire(owner, automation_id))["id"])
        [denied] = refused["invocations"]
        assert (denied["mode_source"], denied["mode_rule"]) == ("space_rule", {"level": "space", "index": 0})
        assert loopback.hits[hits] == 1

    async def test_the_preview_says_which_rule_decides(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation_id = await active(owner, method_step("drop", f"{loopback.url}/count/x", "DELETE"))
        rules = [{"capability": "http.request", "mode": "require_approval", "approvals": 2}, DELETE_DENIED]
        assert (await put_modes(owner, {"modes": {}, "rules": rules}, automation_id)).status_code == 200
        preview = await owner.request(
            "POST", owner.space_path(f"/automations/{automation_id}/preview"), json={}
        )
        assert preview.status_code == 200, preview.text
        [call] = preview.json()["steps"][0]["calls"]
        assert (call["mode"], call["mode_source"]) == ("require_approval", "automation_rule")
        assert (call["mode_rule"], call["required_approvals"]) == ({"level": "automation", "index": 0}, 2)


class TestMalformedRules:
    async def test_a_malformed_rule_is_a_422_with_pointers_and_changes_nothing(
        self, factory: Factory, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        assert (
            await put_modes(owner, {"modes": {"crm.*": "deny"}, "rules": [DELETE_DENIED]})
        ).status_code == 200
        bad = [
            {"capability": "http.request", "when": {"method": {"inn": ["DELETE"]}}, "mode": "deny"},
            {"capability": "Bad Id", "mode": "maybe"},
            {"capability": "x.y", "mode": "deny", "approvals": 2, "colour": "red"},
            {"capability": "x.y", "mode": "require_approval", "approvals": 9},
            "not a rule",
        ]
        refused = await put_modes(owner, {"modes": {}, "rules": bad})
        assert refused.status_code == 422, refused.text
        error = refused.json()["error"]
        assert error["code"] == "invalid_action_modes"
        pointers = {detail["path"] for detail in error["details"]}
        assert {
            "/rules/0/when/method/inn",
            "/rules/1/capability",
            "/rules/1/mode",
            "/rules/2/approvals",
            "/rules/2/colour",
            "/rules/3/approvals",
            "/rules/4",
        } <= pointers, pointers
        not_a_list = await put_modes(owner, {"modes": {}, "rules": {"capability": "x"}})
        assert not_a_list.status_code == 422
        kept = await owner.request("GET", owner.space_path("/action-modes"))
        assert kept.json() == {"modes": {"crm.*": "deny"}, "rules": [DELETE_DENIED]}

    async def test_a_put_without_rules_keeps_them_and_members_cannot_set_them(
        self, factory: Factory, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        member = await factory.member(owner, "member")
        assert (await put_modes(owner, {"modes": {}, "rules": [DELETE_DENIED]})).status_code == 200
        assert (await put_modes(owner, {"modes": {"crm.*": "deny"}})).json()["rules"] == [DELETE_DENIED]
        as_member = await put_modes(member, {"modes": {}, "rules": []})
        assert as_member.status_code == 403
        assert (await member.request("GET", member.space_path("/action-modes"))).json()["rules"] == [
            DELETE_DENIED
        ]
