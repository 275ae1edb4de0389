"""Require-approval end to end: the run waits durably, the inbox shows the call, a decision resumes it.

Real API, PostgreSQL, Redis, Celery worker and beat; the outside world is the loopback server.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

import psutil
from sqlalchemy import update

from app.config import Settings
from app.persistence.base import utcnow
from app.persistence.models import ActionInvocation, Role, Run
from app.persistence.transaction import transaction
from app.services.governance.approvals import approval_service
from app.services.identity.access import Caller as Principal
from app.services.identity.access import SpaceAccess
from tests.governed.helpers import name, waiting_run
from tests.support.approvals import decide, pending_approvals, set_modes, the_approval
from tests.support.factories import Factory
from tests.support.loopback import Loopback
from tests.support.round_trips import counted
from tests.support.runs import attempts, fire, get_run, wait_for
from tests.support.servers import flush_prefix


class TestApprove:
    async def test_the_run_waits_without_a_lease_and_runs_the_call_once_after_approval(
        self, app, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hits = name("approve")
        automation_id, run = await waiting_run(owner, loopback, hits)
        assert loopback.hits[hits] == 0
        async with app.state.sessionmaker() as session:
            row = await session.get(Run, uuid.UUID(run["id"]))
        assert row is not None
        assert (row.claimed_by, row.lease_expires_at) == (None, None)
        assert attempts(run, "call")[0]["status"] == "suspended"

        approval = await the_approval(owner, run["id"])
        assert approval["capability"] == "http.request"
        assert (approval["tier"], approval["risk"], approval["status"]) == ("native", "write", "pending")
        assert (approval["mode"], approval["mode_source"]) == ("require_approval", "automation_override")
        assert approval["params"]["url"].endswith(f"/count/{hits}")
        assert (approval["step_id"], approval["chosen_by"]) == ("call", "definition")
        assert approval["expires_at"] is not None
        notes = (await owner.request("GET", owner.space_path("/notifications"))).json()["items"]
        assert [n["title"] for n in notes] == ["Approval needed: http.request"]
        # GET never decides: a link scanner fetching the approval leaves it pending.
        fetched = await owner.request("GET", owner.space_path(f"/approvals/{approval['id']}"))
        assert fetched.status_code == 200
        assert fetched.json()["status"] == "pending"

        answer = await decide(owner, approval["id"], "approve", {"scope": "once"})
        assert answer.status_code == 200, answer.text
        assert (answer.json()["status"], answer.json()["decision_scope"]) == ("approved", "once")
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        assert loopback.hits[hits] == 1
        [invocation] = done["invocations"]
        assert invocation["status"] == "executed"
        assert invocation["result"]["status_code"] == 200
        assert invocation["decided_by"] == owner.user_id

        again = await decide(owner, approval["id"], "approve")
        assert (again.status_code, again.json()["error"]["code"]) == (409, "approval_not_pending")
        assert await pending_approvals(owner) == []
        # `once` wrote no standing permission.
        automation = (await owner.request("GET", owner.space_path(f"/automations/{automation_id}"))).json()
        assert automation["action_modes"] == {"http.request": "require_approval"}

    async def test_always_allows_later_calls_of_the_automation_and_always_space_of_the_space(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hits = name("always")
        automation_id, run = await waiting_run(owner, loopback, hits)
        approval = await the_approval(owner, run["id"])
        assert (await decide(owner, approval["id"], "approve", {"scope": "always"})).status_code == 200
        assert (await wait_for(owner, run["id"]))["status"] == "succeeded"
        # A standing grant of this step's call, not an override of the whole capability.
        automation = (await owner.request("GET", owner.space_path(f"/automations/{automation_id}"))).json()
        assert automation["action_modes"] == {"http.request": "require_approval"}
        second = await wait_for(owner, (await fire(owner, automation_id))["id"])
        assert second["status"] == "succeeded"
        assert loopback.hits[hits] == 2
        assert second["invocations"][0]["mode_source"] == "approval_grant"

        other_hits = name("space")
        _, other = await waiting_run(owner, loopback, other_hits)
        approval = await the_approval(owner, other["id"])
        assert (await decide(owner, approval["id"], "approve", {"scope": "always_space"})).status_code == 200
        modes = (await owner.request("GET", owner.space_path("/action-modes"))).json()
        assert modes == {"modes": {"http.request": "allow"}, "rules": []}


class TestRoundTrips:
    async def test_an_approval_is_recorded_and_counted_in_one_statement(
        self, app, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        _, run = await waiting_run(owner, loopback, name("counted"))
        approval = await the_approval(owner, run["id"])
        with counted(app) as sent:
            answer = await decide(owner, approval["id"], "approve", {"scope": "once"})
        assert answer.status_code == 200, answer.text
        decisions = [" ".join(statement.split()) for statement in sent if "approval_decisions" in statement]
        # The decision's insert, refused for a second decision of the same member, with the count of the
        # approvals before it; then the answer's list of decisions. It was a look-up, the insert and a count.
        assert len(decisions) == 2, decisions
        assert decisions[0].startswith("WITH added AS (INSERT INTO approval_decisions")
        assert "ON CONFLICT (invocation_id, user_id) DO NOTHING" in decisions[0]
        assert len(sent) <= 14, sent


class TestRefusals:
    async def test_bad_decisions_are_refused_clearly(
        self, app, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        member = await factory.member(owner, "member")
        stranger = await factory.owner("Elsewhere")
        _, run = await waiting_run(owner, loopback, name("refusals"))
        approval = await the_approval(owner, run["id"])

        as_member = await decide(member, approval["id"], "approve")
        assert (as_member.status_code, as_member.json()["error"]["code"]) == (403, "role_insufficient")
        # Another space's caller learns nothing: the id is unknown there, and their own space has no such id.
        elsewhere = await stranger.request(
            "POST", stranger.space_path(f"/approvals/{approval['id']}/approve", owner.space_id), json={}
        )
        assert elsewhere.status_code == 404
        in_theirs = await decide(stranger, approval["id"], "approve")
        assert (in_theirs.status_code, in_theirs.json()["error"]["code"]) == (404, "approval_not_found")
        bad_scope = await decide(owner, approval["id"], "approve", {"scope": "forever"})
        assert bad_scope.status_code == 422
        unknown = await decide(owner, str(uuid.uuid4()), "approve")
        assert unknown.status_code == 404

        # A destructive capability is approved one call at a time.
        async with transaction(app.state.sessionmaker, app.state.send_job) as session:
            await session.execute(
                update(ActionInvocation)
                .where(ActionInvocation.id == uuid.UUID(approval["id"]))
                .values(destructive=True)
            )
        destructive = await decide(owner, approval["id"], "approve", {"scope": "always"})
        assert (destructive.status_code, destructive.json()["error"]["code"]) == (422, "scope_not_allowed")
        assert (await the_approval(owner, run["id"]))["status"] == "pending", "nothing changed"

    async def test_self_approval_is_refused_when_the_space_forbids_it(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        admin = await factory.member(owner, "admin")
        settings = {"approval_ttl_seconds": 3600, "forbid_self_approval": True}
        assert (
            await owner.request("PUT", owner.space_path("/approval-settings"), json=settings)
        ).status_code == 200
        hits = name("self")
        _, run = await waiting_run(owner, loopback, hits)
        approval = await the_approval(owner, run["id"])
        waits = datetime.fromisoformat(approval["expires_at"]) - datetime.fromisoformat(
            approval["created_at"]
        )
        assert waits == timedelta(seconds=3600), "the space's approval_ttl_seconds"
        mine = await decide(owner, approval["id"], "approve")
        assert (mine.status_code, mine.json()["error"]["code"]) == (403, "self_approval_forbidden")
        assert (await decide(admin, approval["id"], "approve")).status_code == 200
        assert (await wait_for(owner, run["id"]))["status"] == "succeeded"
        assert loopback.hits[hits] == 1

    async def test_bad_settings_and_modes_are_422(self, factory: Factory) -> None:
        owner = await factory.owner()
        member = await factory.member(owner, "member")
        too_short = {"approval_ttl_seconds": 1}
        assert (
            await owner.request("PUT", owner.space_path("/approval-settings"), json=too_short)
        ).status_code == 422
        bad_mode = await owner.request(
            "PUT", owner.space_path("/action-modes"), json={"modes": {"x.y": "maybe"}}
        )
        assert bad_mode.status_code == 422
        bad_key = await owner.request(
            "PUT", owner.space_path("/action-modes"), json={"modes": {"X Y": "allow"}}
        )
        assert (bad_key.status_code, bad_key.json()["error"]["code"]) == (422, "invalid_action_modes")
        assert bad_key.json()["error"]["details"][0]["path"] == "/modes/X Y"
        as_member = await member.request("PUT", member.space_path("/action-modes"), json={"modes": {}})
        assert as_member.status_code == 403
        other = await owner.request(
            "PUT", owner.space_path(f"/automations/{uuid.uuid4()}/action-modes"), json={"modes": {}}
        )
        assert other.status_code == 404


class TestDenyExpireCancel:
    async def test_deny_fails_the_step_not_retried_and_on_failure_runs(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hits, handler = name("denied"), name("handler")
        on_failure = [
            {
                "step_id": "tell",
                "action": "http_request",
                "config": {"method": "POST", "url": f"{loopback.url}/count/{handler}"},
            }
        ]
        _, run = await waiting_run(
            owner, loopback, hits, execution={"max_retries": 3, "on_failure": on_failure}
        )
        approval = await the_approval(owner, run["id"])
        answer = await decide(owner, approval["id"], "deny", {"reason": "not on a Friday"})
        assert answer.status_code == 200
        assert (answer.json()["status"], answer.json()["denied_reason"]) == ("denied", "human")
        handler_wait = await wait_for(owner, run["id"], {"awaiting_approval", "failed"}, timeout=60)
        assert loopback.hits[hits] == 0
        assert [a["status"] for a in attempts(handler_wait, "call")] == ["failed"], "not retried"
        assert attempts(handler_wait, "call")[0]["error"]["code"] == "approval_denied"
        assert handler_wait["status"] == "awaiting_approval", "on_failure's call needs approval too"
        tell = await the_approval(owner, run["id"])
        assert tell["step_id"] == "tell"
        assert (await decide(owner, tell["id"], "approve")).status_code == 200
        done = await wait_for(owner, run["id"])
        assert done["status"] == "failed"
        assert done["error"]["code"] == "approval_denied"
        assert loopback.hits[handler] == 1

    async def test_an_expired_approval_fails_the_run(
        self, app, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hits = name("expired")
        _, run = await waiting_run(owner, loopback, hits)
        approval = await the_approval(owner, run["id"])
        async with transaction(app.state.sessionmaker, app.state.send_job) as session:
            await session.execute(
                update(ActionInvocation)
                .where(ActionInvocation.id == uuid.UUID(approval["id"]))
                .values(expires_at=utcnow() - timedelta(seconds=1))
            )
        late = await decide(owner, approval["id"], "approve")
        assert (late.status_code, late.json()["error"]["code"]) == (409, "approval_not_pending")
        done = await wait_for(owner, run["id"], timeout=30)  # beat's sweep
        assert done["status"] == "failed"
        assert done["error"]["code"] == "approval_expired"
        [invocation] = done["invocations"]
        assert (invocation["status"], invocation["denied_reason"]) == ("expired", "expired")
        assert loopback.hits[hits] == 0

    async def test_cancel_expires_the_pending_call_and_a_later_decision_is_409(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hits = name("cancelled")
        _, run = await waiting_run(owner, loopback, hits)
        approval = await the_approval(owner, run["id"])
        cancelled = await owner.request("POST", owner.space_path(f"/runs/{run['id']}/cancel"))
        assert cancelled.status_code == 200
        assert cancelled.json()["status"] == "cancelled"
        late = await decide(owner, approval["id"], "approve")
        assert (late.status_code, late.json()["error"]["code"]) == (409, "approval_not_pending")
        assert (await get_run(owner, run["id"]))["invocations"][0]["status"] == "expired"
        assert loopback.hits[hits] == 0


class TestDurability:
    async def test_a_lost_wake_up_after_approval_still_runs_the_call_once(
        self, app, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hits = name("lost")
        _, run = await waiting_run(owner, loopback, hits)
        approval = await the_approval(owner, run["id"])
        access = SpaceAccess(
            Principal(uuid.UUID(owner.user_id), "owner@example.test", uuid.uuid4()),
            uuid.UUID(owner.space_id),
            Role.owner,
        )
        # The decision commits, but its broker message is lost (a sender that drops every job), and the
        # worker's processes die right after.
        async with transaction(app.state.sessionmaker, lambda job: None) as session:
            await approval_service.approve(session, access, uuid.UUID(approval["id"]), "once")
        for child in psutil.Process(stack[0].process.pid).children(recursive=True):
            child.kill()
        done = await wait_for(owner, run["id"], timeout=60)  # recovery re-enqueues the unclaimed pending run
        assert done["status"] == "succeeded", done
        assert loopback.hits[hits] == 1
        assert done["invocations"][0]["status"] == "executed"

    async def test_a_flushed_redis_while_waiting_loses_nothing(
        self, factory: Factory, loopback: Loopback, settings: Settings, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hits = name("flushed")
        _, run = await waiting_run(owner, loopback, hits)
        flush_prefix(settings.resolved_redis_url(), settings.redis_key_prefix)
        approval = await the_approval(owner, run["id"])
        assert (await decide(owner, approval["id"], "approve")).status_code == 200
        done = await wait_for(owner, run["id"], timeout=60)
        assert done["status"] == "succeeded"
        assert loopback.hits[hits] == 1


class TestPolicies:
    async def test_a_denied_capability_fails_the_step_and_is_audited(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        await set_modes(owner, {"http.*": "deny"})
        hits = name("policy")
        automation = await owner.create_automation(
            {
                "schema_version": "1.0",
                "name": "Denied",
                "plan": [
                    {
                        "step_id": "call",
                        "action": "http_request",
                        "config": {"url": f"{loopback.url}/count/{hits}"},
                    }
                ],
                "execution": {"max_retries": 2},
            }
        )
        done = await wait_for(owner, (await fire(owner, automation["id"]))["id"])
        assert done["status"] == "failed"
        assert done["error"]["code"] == "action_denied"
        assert len(attempts(done, "call")) == 1, "a denial is not retried"
        assert loopback.hits[hits] == 0
        listed = await owner.request(
            "GET", owner.space_path("/invocations"), params={"status": "denied", "capability": "http.request"}
        )
        [row] = listed.json()["items"]
        assert (row["denied_reason"], row["mode_source"], row["run_id"]) == (
            "policy",
            "space_default",
            done["id"],
        )
        none = await owner.request("GET", owner.space_path("/invocations"), params={"status": "executed"})
        assert none.json()["items"] == []
        bad = await owner.request("GET", owner.space_path("/invocations"), params={"status": "weird"})
        assert bad.status_code == 422

    async def test_grants_refuse_a_host_outside_the_list(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        inside, outside = name("granted"), name("outside")
        document = {
            "schema_version": "1.0",
            "name": "Granted",
            "plan": [
                {
                    "step_id": "ok",
                    "action": "http_request",
                    "config": {"url": f"{loopback.url}/count/{inside}"},
                },
                {
                    "step_id": "no",
                    "action": "http_request",
                    "config": {"url": f"http://localhost:1/count/{outside}"},
                },
            ],
            "execution": {"tool_grants": [{"capability": "http.request", "hosts": ["127.0.0.1"]}]},
        }
        automation = await owner.create_automation(document)
        done = await wait_for(owner, (await fire(owner, automation["id"]))["id"])
        assert done["status"] == "failed"
        assert done["failed_step_id"] == "no"
        assert loopback.hits[inside] == 1
        assert [(i["step_id"], i["status"], i["denied_reason"]) for i in done["invocations"]] == [
            ("ok", "executed", None),
            ("no", "denied", "grant"),
        ]

    async def test_an_awaiting_run_counts_for_its_automations_concurrency(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation_id, run = await waiting_run(
            owner, loopback, name("serial"), execution={"concurrency": "drop_if_running"}
        )
        second = await fire(owner, automation_id)
        assert second["status"] == "dropped"
        assert run["status"] == "awaiting_approval"
