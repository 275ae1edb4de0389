"""agent_task and llm_complete against a scripted provider: tool loop, repairs, caps, ledger, errors."""

from __future__ import annotations

import json
import uuid
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from app.persistence.models import LlmUsage
from tests.support.factories import Caller, Factory
from tests.support.fake_llm import (
    INPUT_PRICE,
    OUTPUT_PRICE,
    TEST_MODEL,
    FakeLlm,
    error,
    json_reply,
    reply,
    tool_call,
)
from tests.support.loopback import Loopback
from tests.support.runs import attempts, definition, fire, start, wait_for

SUMMARY = {
    "type": "object",
    "required": ["summary", "count"],
    "properties": {"summary": {"type": "string"}, "count": {"type": "integer"}},
    "additionalProperties": False,
}


def agent_step(**config: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "prompt": "Count things for {{ inputs.who | default('ops') }}.",
        "model": TEST_MODEL,
    }
    base["output_schema"] = SUMMARY
    base.update(config)
    return {"step_id": "think", "action": "agent_task", "config": base, "output_as": "thought"}


async def _ledger(app: Any, run_id: str) -> list[LlmUsage]:
    async with app.state.sessionmaker() as session:
        statement = select(LlmUsage).where(LlmUsage.run_id == uuid.UUID(run_id)).order_by(LlmUsage.created_at)
        return list((await session.scalars(statement)).all())


def _cost(prompt: int, completion: int) -> Decimal:
    """Usage times the configured prices, exactly (the ledger stores six decimals)."""
    return prompt * Decimal(str(INPUT_PRICE)) + completion * Decimal(str(OUTPUT_PRICE))


async def _run(owner: Caller, *steps: dict[str, Any], **changes: Any) -> dict[str, Any]:
    # These tests are about the tool loop: the space lets its agents write without asking first
    # (an agent's write needs approval by default; tests/governed cover that path).
    modes = {"modes": {"http.*": "allow", "notify.send": "allow"}}
    assert (await owner.request("PUT", owner.space_path("/action-modes"), json=modes)).status_code == 200
    _, run = await start(owner, definition(*steps, **changes))
    return await wait_for(owner, run["id"], timeout=60)


class TestToolLoop:
    async def test_two_tools_then_a_valid_answer(
        self, app, factory: Factory, llm: FakeLlm, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = f"agent-{uuid.uuid4().hex[:6]}"
        llm.script(
            tool_call("http__request", {"method": "GET", "url": f"{loopback.url}/count/{name}"}),
            tool_call("notify__send", {"title": "counted"}),
            json_reply({"summary": "one thing", "count": 1}, prompt_tokens=30, completion_tokens=7),
        )
        done = await _run(owner, agent_step(tools=["http.*", "notify.send"]))
        assert done["status"] == "succeeded", done
        assert done["output"]["thought"] == {"summary": "one thing", "count": 1}
        assert loopback.hits[name] == 1
        offered = {tool["function"]["name"] for tool in llm.requests[0]["tools"]}
        assert offered == {"http__request", "notify__send"}
        assert "Count things for ops." in json.dumps(llm.requests[0]["messages"])
        fed_back = [m for m in llm.requests[1]["messages"] if m["role"] == "tool"]
        assert json.loads(fed_back[0]["content"])["result"]["status_code"] == 200
        inbox = (await owner.request("GET", owner.space_path("/notifications"))).json()["items"]
        assert [n["title"] for n in inbox] == ["counted"]
        ledger = await _ledger(app, done["id"])
        assert len(ledger) == 3
        assert ledger[-1].cost_usd == _cost(30, 7)
        assert Decimal(str(done["cost_usd"])) == sum((row.cost_usd for row in ledger), Decimal(0))
        (spend,) = done["llm_spend"]
        assert (spend["step_id"], spend["calls"]) == ("think", 3), "an agent's turns add up in its step"
        assert Decimal(str(spend["cost_usd"])) == Decimal(str(done["cost_usd"]))

    async def test_a_tool_outside_the_allowlist_is_refused_and_never_runs(
        self, factory: Factory, llm: FakeLlm, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = f"forbidden-{uuid.uuid4().hex[:6]}"
        llm.script(
            tool_call("http__request", {"url": f"{loopback.url}/count/{name}"}),
            json_reply({"summary": "gave up", "count": 0}),
        )
        done = await _run(owner, agent_step(tools=["notify.send"]))
        assert done["status"] == "succeeded"
        assert loopback.hits[name] == 0
        (tool_message,) = [m for m in llm.requests[1]["messages"] if m["role"] == "tool"]
        assert json.loads(tool_message["content"])["error"]["code"] == "tool_not_allowed"

    async def test_invalid_json_is_repaired(self, app, factory: Factory, llm: FakeLlm, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        llm.script(reply("I think about 3"), json_reply({"summary": "three", "count": 3}))
        step = {**agent_step(), "max_retries": 1}
        done = await _run(owner, step)
        assert done["status"] == "succeeded"
        assert done["output"]["thought"]["count"] == 3
        assert "not valid" in llm.requests[1]["messages"][-1]["content"]
        assert len(await _ledger(app, done["id"])) == 2

    async def test_answer_still_invalid_after_repairs_fails(
        self, factory: Factory, llm: FakeLlm, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        llm.script(json_reply({"summary": 1}), json_reply({"count": "x"}))
        done = await _run(owner, {**agent_step(), "max_retries": 1})
        assert done["status"] == "failed"
        assert "output_schema" in done["error"]["message"]

    async def test_max_iterations_reached(self, factory: Factory, llm: FakeLlm, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        llm.script(tool_call("notify__send", {"title": "a"}), tool_call("notify__send", {"title": "b"}))
        done = await _run(owner, agent_step(tools=["notify.send"], max_iterations=2))
        assert done["status"] == "failed"
        assert "max_iterations" in done["error"]["message"]
        assert llm.remaining == 0
        assert len(llm.requests) == 2


class TestProviderErrors:
    async def test_429_and_500_are_retried_by_the_step_policy(
        self, factory: Factory, llm: FakeLlm, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        llm.script(error(429), error(500), json_reply({"summary": "fine", "count": 2}))
        done = await _run(owner, agent_step(), execution={"max_retries": 2, "retry_backoff": "none"})
        assert done["status"] == "succeeded"
        errors = [a["error"]["code"] for a in attempts(done, "think") if a["status"] == "failed"]
        assert errors == ["llm_rate_limited", "llm_unavailable"]
        assert "sk-test" not in json.dumps(done)

    async def test_provider_refusal_is_not_retried(self, factory: Factory, llm: FakeLlm, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        llm.script(error(400, "bad request"), json_reply({"summary": "never", "count": 0}))
        done = await _run(owner, agent_step(), execution={"max_retries": 3, "retry_backoff": "none"})
        assert done["status"] == "failed"
        assert len(attempts(done, "think")) == 1
        assert llm.remaining == 1


class TestCaps:
    async def test_budget_refused_before_enqueue(self, factory: Factory, llm: FakeLlm) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation(
            definition(agent_step(max_tokens=1000), execution={"budget_cap_usd": 0.0001})
        )
        run = await fire(owner, automation["id"])
        assert run["status"] == "dropped"
        assert run["reason"].startswith("budget_exceeded")
        assert llm.requests == []

    async def test_budget_stops_a_run_mid_flight(self, app, factory: Factory, llm: FakeLlm, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        # The first call fits its worst case but costs more than expected; the second cannot fit any more.
        # Two turns of 10 tokens fit the cap up front (estimated at about $0.00043).
        llm.script(
            reply(
                None,
                tool_calls=[tool_call("notify__send", {"title": "x"})],
                prompt_tokens=10,
                completion_tokens=200,
            ),
            json_reply({"summary": "too late", "count": 1}),
        )
        first_cost = _cost(10, 200)
        done = await _run(
            owner,
            agent_step(tools=["notify.send"], max_tokens=10, max_iterations=2),
            execution={"budget_cap_usd": 0.0005},
        )
        assert done["status"] == "failed"
        assert done["error"]["code"] == "budget_exceeded"
        ledger = await _ledger(app, done["id"])
        assert [row.cost_usd for row in ledger] == [first_cost]
        assert len(llm.requests) == 1

    async def test_token_cap(self, app, factory: Factory, llm: FakeLlm, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        llm.script(
            reply(
                None,
                tool_calls=[tool_call("notify__send", {"title": "x"})],
                prompt_tokens=10,
                completion_tokens=150,
            ),
            json_reply({"summary": "over", "count": 1}),
        )
        done = await _run(
            owner, agent_step(tools=["notify.send"], max_tokens=50), execution={"max_llm_tokens": 300}
        )
        assert done["status"] == "failed"
        assert done["error"]["code"] == "budget_exceeded"
        assert "token" in done["error"]["message"]
        assert len(llm.requests) == 1

    async def test_daily_cap_drops_further_fires(self, factory: Factory, llm: FakeLlm, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        llm.script(json_reply({"summary": "s", "count": 1}, prompt_tokens=100, completion_tokens=200))
        # One turn of 50 tokens fits the day's cap up front; what it used ($0.0005) spends the day.
        automation_id, run = await start(
            owner,
            definition(agent_step(max_iterations=1, max_tokens=50), execution={"cost_cap_daily_usd": 0.0005}),
        )
        assert (await wait_for(owner, run["id"]))["status"] == "succeeded"
        second = await fire(owner, automation_id)
        assert second["status"] == "dropped"
        assert second["reason"].startswith("daily_cost_cap_reached")


class TestModelsAndCompletion:
    async def test_a_model_not_allowed_is_refused_at_save(self, factory: Factory) -> None:
        owner = await factory.owner()
        response = await owner.request(
            "POST",
            owner.space_path("/automations"),
            json={"definition": definition(agent_step(model="openai/gpt-unknown"))},
        )
        assert response.status_code == 422
        (detail,) = response.json()["error"]["details"]
        assert (detail["path"], detail["code"]) == ("/definition/plan/0/config/model", "model_not_allowed")

    async def test_llm_complete_records_usage(self, app, factory: Factory, llm: FakeLlm, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        llm.script(reply("Hello there", prompt_tokens=12, completion_tokens=3))
        step = {
            "step_id": "hello",
            "action": "llm_complete",
            "config": {
                "model": TEST_MODEL,
                "system": "Be brief.",
                "messages": [{"role": "user", "content": "Hi"}],
            },
            "output_as": "hello",
        }
        done = await _run(owner, step)
        assert done["status"] == "succeeded"
        assert done["output"]["hello"]["text"] == "Hello there"
        assert done["output"]["hello"]["usage"] == {
            "input_tokens": 12,
            "output_tokens": 3,
            "cost_usd": float(_cost(12, 3)),
        }
        (row,) = await _ledger(app, done["id"])
        assert (row.model, row.input_tokens, row.output_tokens, row.cost_usd) == (
            TEST_MODEL,
            12,
            3,
            _cost(12, 3),
        )
        assert done["llm_spend"] == [
            {
                "step_id": "hello",
                "calls": 1,
                "input_tokens": 12,
                "output_tokens": 3,
                "cost_usd": float(_cost(12, 3)),
            }
        ]
        assert llm.requests[0]["messages"][0] == {"role": "system", "content": "Be brief."}
