"""Plugins in real runs, on the real worker: the example plugin end to end, and a misbehaving plugin
whose every failure reaches the run as a clear, sanitised error."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

from tests.support.factories import Caller, Factory
from tests.support.fake_llm import TEST_MODEL, FakeLlm, json_reply, tool_call
from tests.support.loopback import Loopback
from tests.support.misbehaving_plugin import LEAKED
from tests.support.runs import attempts, definition, fire, start, wait_for

VERDICT = {
    "type": "object",
    "required": ["verdict"],
    "properties": {"verdict": {"type": "string"}},
    "additionalProperties": False,
}


async def enable(caller: Caller, plugin_id: str, enabled: bool = True) -> None:
    response = await caller.request(
        "PUT", caller.space_path(f"/plugins/{plugin_id}"), json={"enabled": enabled}
    )
    assert response.status_code == 200, response.text


async def run_of(caller: Caller, automation_id: str, timeout: float = 120) -> dict[str, Any]:
    """The first run of an automation someone else fired (an event), once it has ended."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        response = await caller.request("GET", caller.space_path(f"/runs?automation_id={automation_id}"))
        items = response.json()["items"]
        if items:
            return await wait_for(caller, items[0]["id"], timeout=timeout)
        await asyncio.sleep(0.2)
    raise AssertionError(f"automation {automation_id} never ran")


async def run_step(caller: Caller, action: str, config: dict[str, Any], **step: Any) -> dict[str, Any]:
    _, run = await start(caller, definition({"step_id": "s", "action": action, "config": config, **step}))
    return await wait_for(caller, run["id"], timeout=120)


class TestExamplePlugin:
    async def test_emit_fires_an_automation_whose_action_runs_and_whose_agent_calls_the_tool(
        self, app: Any, factory: Factory, llm: FakeLlm, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        await enable(owner, "uptime")
        name = f"uptime-{uuid.uuid4().hex[:6]}"
        site = f"{loopback.url}/status/503/{name}-site"
        listener = definition(
            {
                "step_id": "status_page",
                "action": "uptime.check",
                "config": {"url": f"{loopback.url}/count/{name}-status-page"},
                "output_as": "status_page",
            },
            {
                "step_id": "triage",
                "action": "agent_task",
                "config": {
                    "prompt": "{{ trigger.payload.url }} answered {{ trigger.payload.status_code }}.",
                    "model": TEST_MODEL,
                    "tools": ["uptime.*"],
                    "output_schema": VERDICT,
                },
                "output_as": "triage",
            },
            name="On site down",
            triggers=[{"type": "event", "config": {"event_type": "uptime.site_down"}}],
        )
        listening = await owner.create_automation(listener)
        await owner.request("POST", owner.space_path(f"/automations/{listening['id']}/activate"))
        llm.script(tool_call("uptime__page_status", {"url": site}), json_reply({"verdict": "down"}))

        _, checked = await start(
            owner,
            definition(
                {"step_id": "check", "action": "uptime.check", "config": {"url": site}, "output_as": "check"}
            ),
        )
        checked = await wait_for(owner, checked["id"], timeout=120)
        assert checked["status"] == "succeeded", (checked["error"], checked["steps"])
        assert checked["output"]["check"] == {"url": site, "status_code": 503, "up": False}

        events = (await owner.request("GET", owner.space_path("/events"))).json()["items"]
        emitted = [e for e in events if e["event_type"] == "uptime.site_down"]
        assert len(emitted) == 1
        assert emitted[0]["source_id"] == "plugin:uptime"
        assert emitted[0]["payload"]["status_code"] == 503

        heard = await run_of(owner, listening["id"])
        assert heard["status"] == "succeeded", heard
        assert heard["trigger_payload"]["event_type"] == "uptime.site_down"
        assert heard["output"]["status_page"]["up"] is True
        assert heard["output"]["triage"] == {"verdict": "down"}
        assert loopback.hits[f"{name}-status-page"] == 1
        assert loopback.hits[f"{name}-site"] == 2  # the checker's action, then the agent's tool call
        offered = {tool["function"]["name"] for tool in llm.requests[0]["tools"]}
        assert offered == {"uptime__check", "uptime__page_status"}
        fed_back = [m for m in llm.requests[1]["messages"] if m["role"] == "tool"]
        assert json.loads(fed_back[0]["content"])["result"]["status_code"] == 503

    async def test_a_run_after_the_plugin_was_disabled_fails_with_unknown_action(
        self, app: Any, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        await enable(owner, "uptime")
        saved = await owner.create_automation(
            definition(
                {"step_id": "check", "action": "uptime.check", "config": {"url": f"{loopback.url}/count/x"}}
            )
        )
        await owner.request("POST", owner.space_path(f"/automations/{saved['id']}/activate"))
        await enable(owner, "uptime", False)
        run = await wait_for(owner, (await fire(owner, saved["id"]))["id"], timeout=120)
        assert run["status"] == "failed"
        assert run["error"]["code"] == "unknown_action", run

    async def test_an_agent_saved_with_plugin_tools_loses_them_when_the_plugin_is_disabled(
        self, app: Any, factory: Factory, llm: FakeLlm, stack: Any
    ) -> None:
        owner = await factory.owner()
        await enable(owner, "uptime")
        config = {"prompt": "Look.", "model": TEST_MODEL, "tools": ["uptime.*"], "output_schema": VERDICT}
        saved = await owner.create_automation(
            definition({"step_id": "s", "action": "agent_task", "config": config})
        )
        await owner.request("POST", owner.space_path(f"/automations/{saved['id']}/activate"))
        await enable(owner, "uptime", False)
        llm.script(
            tool_call("uptime__page_status", {"url": "https://example.com"}), json_reply({"verdict": "?"})
        )
        done = await wait_for(owner, (await fire(owner, saved["id"]))["id"], timeout=120)
        assert done["status"] == "succeeded", done
        assert "tools" not in llm.requests[0]  # a disabled plugin offers the model nothing
        fed_back = [m for m in llm.requests[1]["messages"] if m["role"] == "tool"]
        assert json.loads(fed_back[0]["content"])["error"]["code"] == "tool_not_allowed"


class TestMisbehavingPlugin:
    async def test_an_exception_reaches_the_run_sanitised_and_the_log_in_full(
        self, app: Any, factory: Factory, stack: Any, worker: Any
    ) -> None:
        owner = await factory.owner()
        await enable(owner, "misbehave")
        done = await run_step(owner, "misbehave.explode", {}, max_retries=0)
        assert done["status"] == "failed"
        error = attempts(done, "s")[0]["error"]
        assert error["code"] == "plugin_error"
        assert "RuntimeError" in error["message"]
        assert LEAKED not in json.dumps(done)
        assert "Traceback" not in json.dumps(done)
        deadline = time.monotonic() + 30
        while "database password is" not in worker.log_tail(20000) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        assert "Traceback" in worker.log_tail(20000)

    async def test_an_agent_sees_only_the_sanitised_message(
        self, app: Any, factory: Factory, llm: FakeLlm, stack: Any
    ) -> None:
        owner = await factory.owner()
        await enable(owner, "misbehave")
        llm.script(tool_call("misbehave__blow_up", {}), json_reply({"verdict": "broken"}))
        done = await run_step(
            owner,
            "agent_task",
            {"prompt": "Try.", "model": TEST_MODEL, "tools": ["misbehave.blow_up"], "output_schema": VERDICT},
        )
        assert done["status"] == "succeeded", done
        tool_message = next(m for m in llm.requests[1]["messages"] if m["role"] == "tool")
        assert json.loads(tool_message["content"])["error"]["code"] == "plugin_error"
        assert LEAKED not in json.dumps(llm.requests[1])

    async def test_a_result_that_is_not_json_fails_the_step(
        self, app: Any, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        await enable(owner, "misbehave")
        done = await run_step(owner, "misbehave.not_json", {})
        assert done["status"] == "failed"
        assert done["error"]["code"] == "invalid_plugin_result", done

    async def test_a_result_over_256_kb_is_replaced_by_an_error(
        self, app: Any, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        await enable(owner, "misbehave")
        done = await run_step(owner, "misbehave.huge", {})
        assert done["status"] == "failed"
        assert done["error"]["code"] == "result_too_large", done
        assert done["error"]["details"]["truncated"] is True
        assert "xxxxxxxx" not in json.dumps(done)

    async def test_a_hanging_handler_is_stopped_by_the_step_timeout(
        self, app: Any, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        await enable(owner, "misbehave")
        done = await run_step(owner, "misbehave.hang", {}, timeout_seconds=1, max_retries=0)
        assert done["status"] == "failed"
        assert done["error"]["code"] == "step_timeout", done

    async def test_http_goes_through_the_egress_guard(self, app: Any, factory: Factory, stack: Any) -> None:
        owner = await factory.owner()
        await enable(owner, "misbehave")
        done = await run_step(owner, "misbehave.fetch", {"url": "http://169.254.169.254/latest/meta-data/"})
        assert done["status"] == "failed"
        assert done["error"]["code"] == "egress_denied", done

    async def test_emitting_an_undeclared_event_fails(self, app: Any, factory: Factory, stack: Any) -> None:
        owner = await factory.owner()
        await enable(owner, "misbehave")
        done = await run_step(owner, "misbehave.emit_undeclared", {})
        assert done["status"] == "failed"
        assert done["error"]["code"] == "undeclared_event", done

    async def test_a_secret_reaches_the_handler_by_reference_only(
        self, app: Any, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        await enable(owner, "misbehave")
        value = "tok-" + uuid.uuid4().hex
        response = await owner.request(
            "PUT", owner.space_path("/secrets/plugin_token"), json={"value": value}
        )
        assert response.status_code == 201, response.text
        done = await run_step(
            owner, "misbehave.token_length", {"token": {"$secret": "plugin_token"}}, output_as="out"
        )
        assert done["status"] == "succeeded", done
        assert done["output"]["out"] == {"length": len(value), "space_id": owner.space_id}
        assert attempts(done, "s")[0]["config"] == {"token": {"$secret": "plugin_token"}}
        assert value not in json.dumps(done)

    async def test_a_secret_outside_what_the_plugin_declares_is_refused_at_save(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        await enable(owner, "misbehave")
        await owner.request("PUT", owner.space_path("/secrets/plugin_token"), json={"value": "tok-1"})
        document = {
            "schema_version": "1.0",
            "name": "Plugin secret",
            "plan": [
                {
                    "step_id": "s",
                    "action": "misbehave.explode",
                    "config": {"token": {"$secret": "plugin_token"}},
                }
            ],
        }
        checked = await owner.request(
            "POST", owner.space_path("/automations/validate"), json={"definition": document}
        )
        assert checked.status_code == 200, checked.text
        assert [(e["path"], e["code"]) for e in checked.json()["errors"]] == [
            ("/plan/0/config/token", "secret_not_allowed_here")
        ]
