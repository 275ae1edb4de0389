"""Key/value state from runs: tight kv_* steps, an agent's kv tools, limits as step errors, the example."""

from __future__ import annotations

import json
import uuid
from typing import Any

from tests.support.factories import Caller, Factory, example
from tests.support.fake_llm import TEST_MODEL, FakeLlm, Reply, ToolCall, json_reply, tool_call
from tests.support.loopback import Loopback
from tests.support.runs import attempts, definition, fire, start, wait_for


async def _state(caller: Caller, automation_id: str, key: str) -> Any:
    response = await caller.request("GET", caller.space_path(f"/automations/{automation_id}/kv/{key}"))
    return response.json()["value"] if response.status_code == 200 else None


class TestTightSteps:
    async def test_set_get_list_delete_across_runs(self, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        writer = definition(
            {
                "step_id": "read",
                "action": "kv_get",
                "config": {"key": "count", "default": 0},
                "output_as": "count",
            },
            {
                "step_id": "write",
                "action": "kv_set",
                "config": {"key": "count", "value": "{{ count.value + 1 }}"},
            },
            {"step_id": "list", "action": "kv_list", "config": {"prefix": "co"}, "output_as": "listed"},
        )
        automation_id, first = await start(owner, writer)
        done = await wait_for(owner, first["id"])
        assert done["status"] == "succeeded", done
        assert done["output"]["count"] == {"found": False, "value": 0, "expires_at": None}
        second = await wait_for(owner, (await fire(owner, automation_id))["id"])
        assert second["output"]["count"]["value"] == 1, "state survives between runs (and workers)"
        assert [item["key"] for item in second["output"]["listed"]["items"]] == ["count"]
        assert await _state(owner, automation_id, "count") == 2

    async def test_a_refused_key_or_value_fails_the_step_for_good(self, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        bad_key = definition(
            {"step_id": "write", "action": "kv_set", "config": {"key": "a{{ inputs.nl }}b", "value": 1}},
            inputs={"schema": {"type": "object", "properties": {"nl": {"type": "string", "default": "\n"}}}},
        )
        _, run = await start(owner, bad_key)
        failed = await wait_for(owner, run["id"])
        assert failed["status"] == "failed"
        assert failed["error"]["code"] == "invalid_key"
        assert len(attempts(failed, "write")) == 1, "not retried"
        too_big = definition(
            {"step_id": "write", "action": "kv_set", "config": {"key": "k", "value": "{{ 'x' * 70000 }}"}},
        )
        _, run = await start(owner, too_big)
        failed = await wait_for(owner, run["id"])
        assert failed["error"]["code"] == "value_too_large"


def _tool_results(body: dict[str, Any]) -> int:
    return sum(1 for message in body["messages"] if message["role"] == "tool")


def _set_get_then_answer(body: dict[str, Any]) -> Reply | ToolCall:
    """Set the topic, read it back, then answer: the step of the conversation says which."""
    answered = _tool_results(body)
    if answered == 0:
        return tool_call("kv__set", {"key": "topic", "value": {"last": "cats"}, "ttl_seconds": 600})
    if answered == 1:
        return tool_call("kv__get", {"key": "topic"})
    return json_reply({"done": True})


class TestAgentTools:
    async def test_an_agent_reads_and_writes_its_state(self, factory: Factory, llm: FakeLlm, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        # Answered by the conversation, not in order: a claim that takes the run over after a lease lost
        # under load asks the model again from the start of the step.
        llm.answer_by(_set_get_then_answer)
        step = {
            "step_id": "think",
            "action": "agent_task",
            "config": {
                "prompt": "Remember the topic.",
                "model": TEST_MODEL,
                "tools": ["kv.*"],
                "output_schema": {"type": "object", "properties": {"done": {"type": "boolean"}}},
            },
        }
        automation_id, run = await start(owner, definition(step))
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        assert await _state(owner, automation_id, "topic") == {"last": "cats"}
        last = next(r for r in reversed(llm.requests) if _tool_results(r) == 2)
        fed_back = [json.loads(m["content"]) for m in last["messages"] if m["role"] == "tool"]
        assert fed_back[1]["result"]["value"] == {"last": "cats"}
        offered = {tool["function"]["name"] for tool in last["tools"]}
        assert offered == {"kv__get", "kv__set", "kv__delete", "kv__list"}


class TestSkipItemsAlreadySeen:
    async def test_the_example_announces_each_release_once(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hook = f"releases-{uuid.uuid4().hex[:6]}"
        document = example("skip_seen_items.json")
        document["plan"][1]["config"]["url"] = f"{loopback.url}/count/{hook}"
        automation = await owner.create_automation(document)
        first = await wait_for(
            owner, (await fire(owner, automation["id"], {"id": "v1", "title": "One"}))["id"]
        )
        assert first["status"] == "succeeded", first
        again = await wait_for(
            owner, (await fire(owner, automation["id"], {"id": "v1", "title": "One"}))["id"]
        )
        assert [(s["step_id"], s["status"]) for s in again["steps"]] == [
            ("lookup", "succeeded"),
            ("announce", "skipped"),
            ("remember", "skipped"),
        ]
        assert loopback.hits[hook] == 1, "a release seen before is skipped"
        await wait_for(owner, (await fire(owner, automation["id"], {"id": "v2", "title": "Two"}))["id"])
        assert loopback.hits[hook] == 2
        assert loopback.bodies[hook][1] == {"text": "New release: Two"}
        remembered = await _state(owner, automation["id"], "seen/v1")
        assert remembered == {"title": "One", "run_id": first["id"]}
