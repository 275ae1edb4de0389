"""A preview's modes are the ones a live run then records, and a dry run audits what it held back.

Real API, PostgreSQL, Redis and a Celery worker; the outside world is the loopback server.
"""

from __future__ import annotations

import uuid
from typing import Any

from tests.support.approvals import decide, set_modes, the_approval
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.runs import definition, fire, http_step, wait_for


def name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def _plan(url: str) -> dict[str, Any]:
    return definition(
        {"step_id": "remember", "action": "kv_set", "config": {"key": "seen", "value": 1}},
        http_step("call", url),
        {"step_id": "tell", "action": "notification", "config": {"title": "done", "body": "x"}},
    )


async def _invocations(caller: Caller, run_id: str) -> list[dict[str, Any]]:
    response = await caller.request("GET", caller.space_path("/invocations"), params={"run_id": run_id})
    assert response.status_code == 200, response.text
    return sorted(response.json()["items"], key=lambda item: item["created_at"])


class TestPreviewMatchesTheRun:
    async def test_allowed_approval_and_denied_calls(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hits = name("preview-run")
        automation = await owner.create_automation(_plan(f"{loopback.url}/count/{hits}"))
        await set_modes(owner, {"http.request": "require_approval"}, automation["id"])
        await set_modes(owner, {"notify.*": "deny"})

        preview = await owner.request(
            "POST", owner.space_path(f"/automations/{automation['id']}/preview"), json={}
        )
        assert preview.status_code == 200, preview.text
        previewed = {
            call["capability"]: (call["mode"], call["mode_source"])
            for step in preview.json()["steps"]
            for call in step["calls"]
        }
        assert previewed == {
            "kv.set": ("allow", "inferred_default"),
            "http.request": ("require_approval", "automation_override"),
            "notify.send": ("deny", "space_default"),
        }

        run = await fire(owner, automation["id"])
        await wait_for(owner, run["id"], {"awaiting_approval"})
        approval = await the_approval(owner, run["id"])
        assert (await decide(owner, approval["id"], "approve", {"scope": "once"})).status_code == 200
        done = await wait_for(owner, run["id"])
        assert done["status"] == "failed"
        assert done["error"]["code"] == "action_denied"
        recorded = {
            item["capability"]: (item["mode"], item["mode_source"])
            for item in await _invocations(owner, run["id"])
        }
        assert recorded == previewed
        assert loopback.hits[hits] == 1

    async def test_a_dry_run_audits_held_back_writes_without_asking_anyone(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hits = name("dry-audit")
        automation = await owner.create_automation(
            definition(http_step("call", f"{loopback.url}/count/{hits}"))
        )
        await set_modes(owner, {"http.request": "require_approval"}, automation["id"])
        response = await owner.request(
            "POST",
            owner.space_path(f"/automations/{automation['id']}/runs"),
            json={"inputs": {}, "mode": "dry_run"},
        )
        assert response.status_code in (200, 201, 202), response.text
        done = await wait_for(owner, response.json()["id"])
        assert done["status"] == "succeeded", done
        (item,) = await _invocations(owner, done["id"])
        assert (item["capability"], item["status"], item["mode"]) == (
            "http.request",
            "suppressed",
            "require_approval",
        )
        assert item["params"]["url"].endswith(f"/count/{hits}")
        assert loopback.hits[hits] == 0, "nothing was sent"
