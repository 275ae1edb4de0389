"""Model endpoints are operator settings: trusted, and out of reach of definitions.

An installation whose egress allow list is closed (AUTOMATIONS_EGRESS_ALLOW empty) runs an LLM step
against a model served on loopback (Ollama's native API, faked at the wire) through the worker's claim
path, while an HTTP step of the same run is still refused loopback. A definition's step config, an
agent's tool arguments and a model name cannot send a model call anywhere else.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from decimal import Decimal
from typing import Any

import pytest
from httpx import ASGITransport, AsyncClient
from sqlalchemy import select

from app.config import Settings
from app.persistence.models import ActionInvocation, LlmUsage, RunStep
from tests.support.factories import Factory
from tests.support.fake_llm import FakeLlm, reply, tool_call
from tests.support.in_process import execute, in_process_runtime
from tests.support.runs import stored_run

LOCAL = "ollama_chat/llama3.2"
AGENT = "openai/local-agent"
IN_PRICE, OUT_PRICE = "0.000004", "0.000009"
PRICES = {"input_cost_per_token": float(IN_PRICE), "output_cost_per_token": float(OUT_PRICE)}


@pytest.fixture
def local_model() -> Iterator[FakeLlm]:
    with FakeLlm() as server:
        yield server


@pytest.fixture
def decoy() -> Iterator[FakeLlm]:
    """Where a definition would like model calls to go: it must never see a request."""
    with FakeLlm() as server:
        yield server


@pytest.fixture
async def closed(settings: Settings, clean_db: None, local_model: FakeLlm) -> AsyncIterator[Any]:
    """An app (and the worker's runtime on it) with nothing opened to egress and two local models."""
    from app.main import create_app

    isolated = settings.model_copy(
        update={
            "egress_allow": "",
            # Queues of its own: the session's worker must not take this app's jobs.
            "redis_key_prefix": f"test-{uuid.uuid4().hex[:8]}:",
            "llm_allowed_models": [LOCAL, AGENT],
            "llm_models": {
                LOCAL: {"api_base": local_model.url, **PRICES},
                AGENT: {"api_base": local_model.base_url, **PRICES},
            },
        }
    )
    application = create_app(isolated)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def factory_closed(closed: Any) -> AsyncIterator[Factory]:
    async with AsyncClient(transport=ASGITransport(app=closed), base_url="http://testserver") as http:
        yield Factory(closed, http)


def llm_step(step_id: str = "ask", **config: Any) -> dict[str, Any]:
    base = {"model": LOCAL, "messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 50}
    return {"step_id": step_id, "action": "llm_complete", "config": base | config, "output_as": step_id}


def document(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"schema_version": "1.0", "name": "Model endpoints", "plan": list(steps)}


async def _steps(app: Any, run_id: uuid.UUID) -> dict[str, RunStep]:
    async with app.state.sessionmaker() as session:
        rows = (await session.scalars(select(RunStep).where(RunStep.run_id == run_id))).all()
    return {row.step_id: row for row in rows}


async def _ledger(app: Any, run_id: uuid.UUID) -> list[LlmUsage]:
    async with app.state.sessionmaker() as session:
        statement = select(LlmUsage).where(LlmUsage.run_id == run_id).order_by(LlmUsage.created_at)
        return list((await session.scalars(statement)).all())


def _cost(prompt: int, completion: int) -> Decimal:
    return prompt * Decimal(IN_PRICE) + completion * Decimal(OUT_PRICE)


async def test_a_loopback_model_answers_while_an_http_step_may_still_not_reach_loopback(
    closed: Any, factory_closed: Factory, local_model: FakeLlm
) -> None:
    owner = await factory_closed.owner()
    post = {"method": "POST", "url": "{{ inputs.url }}", "json": {"model": "llama3.2", "messages": []}}
    automation = await owner.create_automation(
        document(llm_step(), {"step_id": "post", "action": "http_request", "config": post})
    )
    local_model.script(reply("hi from the local model", prompt_tokens=11, completion_tokens=3))
    run = await stored_run(closed, owner, automation, inputs={"url": f"{local_model.url}/api/chat"})

    assert await execute(in_process_runtime(closed), run.id) == "failed"

    steps = await _steps(closed, run.id)
    assert steps["ask"].status == "succeeded"
    assert steps["ask"].output["text"] == "hi from the local model"
    assert steps["post"].status == "failed"
    assert steps["post"].error["code"] == "egress_denied"
    # The model's endpoint saw the model call, and only that: the HTTP step never reached it.
    assert local_model.paths == ["/api/chat"]
    assert local_model.requests[0]["model"] == "llama3.2"
    [usage] = await _ledger(closed, run.id)
    assert (usage.model, usage.step_id, usage.input_tokens, usage.output_tokens) == (LOCAL, "ask", 11, 3)
    assert usage.cost_usd == _cost(11, 3)


@pytest.mark.parametrize("field", ["api_base", "base_url", "aws_bedrock_runtime_endpoint", "extra_body"])
async def test_a_step_config_cannot_name_a_model_endpoint(
    factory_closed: Factory, decoy: FakeLlm, field: str
) -> None:
    owner = await factory_closed.owner()
    response = await owner.request(
        "POST",
        owner.space_path("/automations"),
        json={"definition": document(llm_step(**{field: decoy.base_url}))},
    )
    assert response.status_code == 422, response.text
    assert field in response.text
    assert decoy.requests == []


async def test_a_model_the_operator_did_not_allow_is_refused_at_save_and_at_run_time(
    closed: Any, factory_closed: Factory, local_model: FakeLlm
) -> None:
    owner = await factory_closed.owner()
    stranger = "ollama/llama3"  # same provider family as an allowed model, not itself allowed
    response = await owner.request(
        "POST", owner.space_path("/automations"), json={"definition": document(llm_step(model=stranger))}
    )
    assert response.status_code == 422, response.text
    assert "model_not_allowed" in response.text
    # A stored run that names it anyway (a definition saved before the operator removed the model).
    automation = await owner.create_automation(document(llm_step()))
    changed = document(llm_step(model=stranger))
    run = await stored_run(closed, owner, automation, definition=changed)

    assert await execute(in_process_runtime(closed), run.id) == "failed"

    steps = await _steps(closed, run.id)
    assert steps["ask"].error["code"] == "model_not_allowed"
    assert local_model.requests == []


async def test_an_agents_tool_call_cannot_point_a_model_call_elsewhere(
    closed: Any, factory_closed: Factory, local_model: FakeLlm, decoy: FakeLlm
) -> None:
    owner = await factory_closed.owner()
    agent = {
        "step_id": "think",
        "action": "agent_task",
        "config": {"model": AGENT, "prompt": "Ask another model.", "tools": ["llm.*"], "max_iterations": 3},
        "output_as": "thought",
    }
    automation = await owner.create_automation(document(agent))
    messages = [{"role": "user", "content": "hi"}]
    local_model.script(
        tool_call("llm__complete", {"model": LOCAL, "messages": messages, "api_base": decoy.base_url}),
        tool_call("llm__complete", {"model": "ollama/llama3", "messages": messages}),
        reply("gave up", prompt_tokens=5, completion_tokens=2),
    )
    run = await stored_run(closed, owner, automation)

    assert await execute(in_process_runtime(closed), run.id) == "succeeded"

    assert decoy.requests == []
    # Three turns of the agent, all at its configured endpoint; neither tool call became a model call.
    assert local_model.paths == ["/v1/chat/completions"] * 3
    async with closed.state.sessionmaker() as session:
        calls = (
            await session.scalars(
                select(ActionInvocation)
                .where(ActionInvocation.run_id == run.id, ActionInvocation.capability == "llm.complete")
                .order_by(ActionInvocation.created_at)
            )
        ).all()
    # Arguments outside the capability's schema are refused before any call is made (nor recorded);
    # a model the operator did not allow is a refused call.
    assert [(call.status, call.error["code"]) for call in calls] == [("failed", "model_not_allowed")]
    told = [m["content"] for m in local_model.requests[2]["messages"] if m["role"] == "tool"]
    assert "invalid_arguments" in told[0]
    assert "model_not_allowed" in told[1]
    assert [usage.model for usage in await _ledger(closed, run.id)] == [AGENT] * 3


@pytest.mark.parametrize("execution", [{"budget_cap_usd": 0.0001}, {"max_llm_tokens": 20}])
async def test_budgets_and_token_caps_hold_a_local_model_before_anything_is_sent(
    closed: Any, factory_closed: Factory, local_model: FakeLlm, execution: dict[str, Any]
) -> None:
    owner = await factory_closed.owner()
    automation = await owner.create_automation(document(llm_step()) | {"execution": execution})
    run = await stored_run(closed, owner, automation)

    assert await execute(in_process_runtime(closed), run.id) == "failed"

    steps = await _steps(closed, run.id)
    assert steps["ask"].error["code"] == "budget_exceeded"
    assert local_model.requests == []
    assert await _ledger(closed, run.id) == []
