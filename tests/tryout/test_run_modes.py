"""Dry and verify runs through a real worker: what is held back, what runs, and what they never announce."""

from __future__ import annotations

import json
import uuid
from typing import Any

from sqlalchemy import func, select

from app.persistence.models import DomainEvent, WebhookDelivery
from tests.support.factories import Caller, Factory
from tests.support.fake_llm import TEST_MODEL, FakeLlm, json_reply, tool_call
from tests.support.fake_slack import FakeSlack
from tests.support.loopback import Loopback
from tests.support.runs import attempts, definition, wait_for


async def try_run(caller: Caller, automation_id: str, **body: Any) -> dict[str, Any]:
    response = await caller.request(
        "POST", caller.space_path(f"/automations/{automation_id}/runs"), json={"inputs": {}, **body}
    )
    assert response.status_code == 202, response.text
    run: dict[str, Any] = response.json()
    return run


def get_step(url: str, step_id: str = "read") -> dict[str, Any]:
    return {
        "step_id": step_id,
        "action": "http_request",
        "config": {"method": "GET", "url": url},
        "output_as": step_id,
    }


def post_step(url: str, step_id: str = "write") -> dict[str, Any]:
    return {
        "step_id": step_id,
        "action": "http_request",
        "config": {"method": "POST", "url": url, "json": {"from": "{{ read.json.name }}"}},
        "output_as": step_id,
    }


async def _events_and_deliveries(app: Any, automation_id: str, run_id: str) -> tuple[int, int]:
    async with app.state.sessionmaker() as session:
        events = await session.scalar(
            select(func.count()).select_from(DomainEvent).where(DomainEvent.source_id == automation_id)
        )
        deliveries = await session.scalar(
            select(func.count())
            .select_from(WebhookDelivery)
            .where(WebhookDelivery.run_id == uuid.UUID(run_id))
        )
    return int(events or 0), int(deliveries or 0)


class TestDryRun:
    async def test_the_post_is_not_sent_while_the_get_runs_and_later_steps_render(
        self, app, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = f"dry-{uuid.uuid4().hex[:6]}"
        document = definition(
            get_step(f"{loopback.url}/count/{name}-get"),
            post_step(f"{loopback.url}/count/{name}-post"),
            {
                "step_id": "after",
                "action": "transform_data",
                "config": {"output": "{{ write.would_call | default('sent') }} {{ write.status_code }}"},
                "output_as": "after",
            },
        )
        automation = await owner.create_automation(document)
        run = await try_run(owner, automation["id"], mode="dry_run")
        assert run["mode"] == "dry_run"
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        assert loopback.hits[f"{name}-get"] == 1, "reads run for real"
        assert loopback.hits[f"{name}-post"] == 0, "the write was never sent"
        (write,) = attempts(done, "write")
        assert write["output"] == {
            "status_code": 200,
            "headers": {},
            "text": "",
            "dry_run": True,
            "would_call": "http.request",
            "params": {
                "method": "POST",
                "url": f"{loopback.url}/count/{name}-post",
                "json": {"from": f"{name}-get"},
            },
        }
        assert write["suppressed"][0]["capability"] == "http.request"
        assert write["suppressed"][0]["mode"] == "dry_run"
        assert attempts(done, "read")[0]["suppressed"] is None
        assert done["output"]["after"] == "http.request 200", "the action's example output fills in"
        live = await wait_for(owner, (await try_run(owner, automation["id"]))["id"])
        assert live["status"] == "succeeded", live
        assert live["output"]["after"] == "sent 200"
        assert loopback.hits[f"{name}-post"] == 1, "the same plan live sends it"

    async def test_a_dry_run_writes_no_state_and_sends_no_notification(self, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation = await owner.create_automation(
            definition(
                {"step_id": "remember", "action": "kv_set", "config": {"key": "k", "value": 1}},
                {"step_id": "tell", "action": "notification", "config": {"title": "dry"}},
            )
        )
        done = await wait_for(owner, (await try_run(owner, automation["id"], mode="dry_run"))["id"])
        assert done["status"] == "succeeded", done
        assert [step["output"]["would_call"] for step in done["steps"]] == ["kv.set", "notify.send"]
        state = await owner.request("GET", owner.space_path(f"/automations/{automation['id']}/kv/k"))
        assert state.status_code == 404
        inbox = (await owner.request("GET", owner.space_path("/notifications"))).json()["items"]
        assert inbox == []

    async def test_an_agent_hears_what_would_have_been_sent_and_goes_on(
        self, factory: Factory, llm: FakeLlm, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = f"agent-dry-{uuid.uuid4().hex[:6]}"
        llm.script(
            tool_call("http__request", {"method": "GET", "url": f"{loopback.url}/count/{name}-get"}),
            tool_call("http__request", {"method": "POST", "url": f"{loopback.url}/count/{name}-post"}),
            json_reply({"done": True}),
        )
        step = {
            "step_id": "think",
            "action": "agent_task",
            "config": {
                "prompt": "Do it.",
                "model": TEST_MODEL,
                "tools": ["http.request"],
                "output_schema": {"type": "object", "properties": {"done": {"type": "boolean"}}},
            },
            "output_as": "thought",
        }
        automation = await owner.create_automation(definition(step))
        done = await wait_for(owner, (await try_run(owner, automation["id"], mode="dry_run"))["id"])
        assert done["status"] == "succeeded", done
        assert loopback.hits[f"{name}-get"] == 1
        assert loopback.hits[f"{name}-post"] == 0
        fed_back = [json.loads(m["content"]) for m in llm.requests[2]["messages"] if m["role"] == "tool"]
        assert fed_back[1]["result"]["dry_run"] is True
        assert fed_back[1]["result"]["params"]["method"] == "POST"
        (think,) = attempts(done, "think")
        assert [call["params"]["method"] for call in think["suppressed"]] == ["POST"]
        assert done["cost_usd"] > 0, "the model calls ran and were paid for"

    async def test_llm_skip_calls_no_model(self, factory: Factory, llm: FakeLlm, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        step = {
            "step_id": "ask",
            "action": "llm_complete",
            "config": {"model": TEST_MODEL, "messages": [{"role": "user", "content": "hi"}]},
            "output_as": "answer",
        }
        automation = await owner.create_automation(definition(step))
        done = await wait_for(
            owner, (await try_run(owner, automation["id"], mode="dry_run", llm="skip"))["id"]
        )
        assert done["status"] == "succeeded", done
        assert done["llm_mode"] == "skip"
        assert llm.requests == []
        assert attempts(done, "ask")[0]["output"]["would_call"] == "llm.complete"
        assert done["cost_usd"] == 0


class TestVerify:
    async def test_a_verify_run_writes_state_but_sends_no_slack_message(
        self, factory: Factory, fake_slack: FakeSlack, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        await owner.request("PUT", owner.space_path("/secrets/slack_bot_token"), json={"value": "xoxb-good"})
        text = f"verify-{uuid.uuid4().hex}"
        automation = await owner.create_automation(
            definition(
                {"step_id": "remember", "action": "kv_set", "config": {"key": "last", "value": text}},
                {
                    "step_id": "post",
                    "action": "slack_post",
                    "config": {"channel": "#eng", "text": text, "token": {"$secret": "slack_bot_token"}},
                },
            )
        )
        posts_before = len(fake_slack.posts)
        run = await try_run(owner, automation["id"], mode="verify")
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        assert done["mode"] == "verify"
        state = await owner.request("GET", owner.space_path(f"/automations/{automation['id']}/kv/last"))
        assert state.json()["value"] == text, "the internal write was made"
        assert not [post for post in fake_slack.posts[posts_before:] if post.get("text") == text]
        (post,) = attempts(done, "post")
        assert post["output"]["would_call"] == "slack.post_message"
        assert post["output"]["params"]["token"] == {"$secret": "slack_bot_token"}, (
            "a reference, never the value"
        )
        assert "xoxb-good" not in json.dumps(done)
        live = await try_run(owner, automation["id"])
        assert (await wait_for(owner, live["id"]))["status"] == "succeeded"
        assert [post for post in fake_slack.posts if post.get("text") == text], "live, the message goes"


class TestNeverAnnounced:
    async def test_no_event_and_no_webhook_delivery_for_a_dry_run(
        self, app, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hook = f"hook-{uuid.uuid4().hex[:6]}"
        endpoint = await owner.request(
            "POST",
            owner.space_path("/webhook-endpoints"),
            json={"url": f"{loopback.url}/count/{hook}", "events": ["automation.run.*"]},
        )
        assert endpoint.status_code == 201, endpoint.text
        automation = await owner.create_automation(
            definition({"step_id": "a", "action": "transform_data", "config": {"output": 1}})
        )
        for mode in ("dry_run", "verify"):
            done = await wait_for(owner, (await try_run(owner, automation["id"], mode=mode))["id"])
            assert done["status"] == "succeeded"
            assert await _events_and_deliveries(app, automation["id"], done["id"]) == (0, 0)
        live = await wait_for(owner, (await try_run(owner, automation["id"]))["id"])
        assert await _events_and_deliveries(app, automation["id"], live["id"]) == (1, 1)

    async def test_a_try_out_of_a_scheduled_automation_leaves_its_schedule_alone(
        self, factory: Factory, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation = await owner.create_automation(
            definition(
                {"step_id": "a", "action": "transform_data", "config": {"output": 1}},
                triggers=[{"type": "schedule", "config": {"cron": "0 3 * * *"}}],
            )
        )
        await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
        before = (await owner.request("GET", owner.space_path(f"/automations/{automation['id']}"))).json()
        done = await wait_for(owner, (await try_run(owner, automation["id"], mode="dry_run"))["id"])
        assert done["status"] == "succeeded"
        after = (await owner.request("GET", owner.space_path(f"/automations/{automation['id']}"))).json()
        assert after["triggers"][0]["last_fired_at"] is None
        assert after["triggers"][0]["next_fire_at"] == before["triggers"][0]["next_fire_at"]

    async def test_a_dry_run_takes_no_callback_url(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation()
        response = await owner.request(
            "POST",
            owner.space_path(f"/automations/{automation['id']}/runs"),
            json={"mode": "dry_run", "callback_url": "https://ci.example.com/done"},
        )
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "callback_needs_live_run"


class TestConcurrencyPolicy:
    async def test_drop_if_running_ignores_try_outs_both_ways(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = f"slow-{uuid.uuid4().hex[:6]}"
        document = definition(
            get_step(f"{loopback.url}/slow/{name}?seconds=3", "wait"),
            execution={"concurrency": "drop_if_running"},
        )
        automation = await owner.create_automation(document)
        live = await try_run(owner, automation["id"])
        await wait_for(owner, live["id"], {"running"})
        dry = await try_run(owner, automation["id"], mode="dry_run")
        assert dry["status"] == "pending", "a try-out is not dropped for a live run"
        another_live = await try_run(owner, automation["id"])
        assert another_live["status"] == "dropped", "the policy still holds between live runs"
        await wait_for(owner, live["id"])
        await wait_for(owner, dry["id"], {"running", "succeeded"})
        dry_first = await try_run(owner, automation["id"], mode="verify")
        await wait_for(owner, dry_first["id"], {"running"})
        live_after = await try_run(owner, automation["id"])
        assert live_after["status"] == "pending", "a try-out in flight does not drop a live fire"
        for run in (dry, dry_first, live_after):
            await wait_for(owner, run["id"])


class TestBadInput:
    async def test_unknown_modes_are_422_and_create_nothing(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation()
        for body in ({"mode": "bogus"}, {"mode": "DRY_RUN"}, {"llm": "maybe"}, {"mode": None}):
            response = await owner.request(
                "POST", owner.space_path(f"/automations/{automation['id']}/runs"), json=body
            )
            assert response.status_code == 422, (body, response.text)
        runs = (await owner.request("GET", owner.space_path("/runs"))).json()["items"]
        assert runs == []
