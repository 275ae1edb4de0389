"""Two-person approval: a rule asks for N distinct approvers; the call waits for all, one deny ends it.

Real API, PostgreSQL, Redis, Celery worker and beat; the outside world is the loopback server.
"""

from __future__ import annotations

from typing import Any

from tests.governed.helpers import name
from tests.governed.test_mode_rules import active, put_modes
from tests.support.approvals import decide, pending_approvals, the_approval
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.runs import fire, get_run, http_step, wait_for

TWO = [{"capability": "http.request", "mode": "require_approval", "approvals": 2}]


async def waiting(owner: Caller, loopback: Loopback, hits: str) -> tuple[str, dict[str, Any]]:
    automation_id = await active(owner, http_step("call", f"{loopback.url}/count/{hits}"))
    assert (await put_modes(owner, {"modes": {}, "rules": TWO}, automation_id)).status_code == 200
    run = await fire(owner, automation_id)
    return automation_id, await wait_for(owner, run["id"], {"awaiting_approval"}, timeout=60)


class TestTwoApprovers:
    async def test_the_call_runs_only_after_two_distinct_approvals(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        admin = await factory.member(owner, "admin")
        hits = name("two")
        _, run = await waiting(owner, loopback, hits)
        approval = await the_approval(owner, run["id"])
        assert (approval["required_approvals"], approval["mode_rule"]) == (
            2,
            {"level": "automation", "index": 0},
        )

        first = await decide(owner, approval["id"], "approve")
        assert first.status_code == 200, first.text
        assert first.json()["status"] == "pending"
        assert [(d["user_id"], d["decision"], d["via"]) for d in first.json()["decisions"]] == [
            (owner.user_id, "approve", "api")
        ]
        again = await decide(owner, approval["id"], "approve")
        assert (again.status_code, again.json()["error"]["code"]) == (409, "already_decided")
        always = await decide(admin, approval["id"], "approve", {"scope": "always"})
        assert (always.status_code, always.json()["error"]["code"]) == (422, "scope_not_allowed")
        assert (await get_run(owner, run["id"]))["status"] == "awaiting_approval"
        assert loopback.hits[hits] == 0

        second = await decide(admin, approval["id"], "approve")
        assert second.status_code == 200, second.text
        assert second.json()["status"] == "approved"
        assert {d["user_id"] for d in second.json()["decisions"]} == {owner.user_id, admin.user_id}
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        assert loopback.hits[hits] == 1
        assert await pending_approvals(owner) == []

    async def test_one_deny_ends_it_after_an_approval(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        admin = await factory.member(owner, "admin")
        hits = name("deny")
        _, run = await waiting(owner, loopback, hits)
        approval = await the_approval(owner, run["id"])
        assert (await decide(owner, approval["id"], "approve")).status_code == 200
        denied = await decide(admin, approval["id"], "deny", {"reason": "not twice"})
        assert denied.status_code == 200, denied.text
        assert denied.json()["status"] == "denied"
        assert [d["decision"] for d in denied.json()["decisions"]] == ["approve", "deny"]
        done = await wait_for(owner, run["id"])
        assert done["status"] == "failed"
        assert done["invocations"][0]["error"]["code"] == "approval_denied"
        assert loopback.hits[hits] == 0

    async def test_self_approval_is_refused_for_each_approver(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        admin = await factory.member(owner, "admin")
        settings = {"approval_ttl_seconds": 3600, "forbid_self_approval": True}
        assert (
            await owner.request("PUT", owner.space_path("/approval-settings"), json=settings)
        ).status_code == 200
        _, run = await waiting(owner, loopback, name("self"))
        approval = await the_approval(owner, run["id"])
        own = await decide(owner, approval["id"], "approve")
        assert (own.status_code, own.json()["error"]["code"]) == (403, "self_approval_forbidden")
        assert (await decide(admin, approval["id"], "approve")).json()["status"] == "pending"
        fetched = await owner.request("GET", owner.space_path(f"/approvals/{approval['id']}"))
        assert [d["user_id"] for d in fetched.json()["decisions"]] == [admin.user_id]
