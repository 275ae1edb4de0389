"""MCP tools in runs, through a real worker: call_tool, agent_task, stdio, errors, timeouts, another
space, and a credential that never lands anywhere."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from fastapi import FastAPI
from sqlalchemy import text

from tests.mcp.conftest import connect, connection
from tests.support.factories import Caller, Factory
from tests.support.fake_llm import TEST_MODEL, FakeLlm, Reply, ToolCall, json_reply, tool_call
from tests.support.mcp_server import McpTestServer, tool
from tests.support.processes import ServiceProcess
from tests.support.runs import attempts, definition, get_run, start, wait_for

SECRET_VALUE = "mcp-bearer-" + uuid.uuid4().hex


def call_step(capability: str, args: dict[str, Any], **extra: Any) -> dict[str, Any]:
    step = {"step_id": "call", "action": "call_tool", "config": {"capability": capability, "args": args}}
    return {**step, "output_as": "called", **extra}


async def run_steps(
    caller: Caller, *steps: dict[str, Any], inputs: dict[str, Any] | None = None
) -> dict[str, Any]:
    _, run = await start(caller, definition(*steps), inputs)
    return await wait_for(caller, run["id"], timeout=60)


async def database_text(app: FastAPI) -> str:
    """Every row of every table as JSON text, to look for a value that must not be stored anywhere."""
    async with app.state.sessionmaker() as session:
        tables = (
            await session.execute(
                text("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
            )
        ).scalars()
        chunks = []
        for table in list(tables):
            rows = await session.execute(text(f'SELECT row_to_json(t)::text FROM "{table}" t'))  # noqa: S608
            chunks.extend(row[0] for row in rows)
    return "\n".join(chunks)


async def test_call_tool_with_a_bearer_secret_stores_the_value_nowhere(
    app: FastAPI,
    factory: Factory,
    mcp_server: McpTestServer,
    stack: tuple[ServiceProcess, ServiceProcess],
    harvest,
    caplog,
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    worker = stack[0]
    put = await owner.request("PUT", owner.space_path("/secrets/crm_token"), json={"value": SECRET_VALUE})
    assert put.status_code == 201
    mcp_server.required_bearer = SECRET_VALUE
    created = await connect(owner, mcp_server.url, auth={"type": "bearer", "secret": "crm_token"})
    # Harvested after the worker started: the worker still resolves the tools.
    assert await harvest(created["id"]) == "ok"

    done = await run_steps(
        owner,
        call_step("crm.add", {"a": 2, "b": "{{ inputs.b }}"}),
        {
            "step_id": "echo",
            "action": "call_tool",
            "config": {"capability": "crm.reflect"},
            "output_as": "seen",
        },
        {
            "step_id": "argument",
            "action": "call_tool",
            "config": {"capability": "crm.echo", "args": {"text": {"$secret": "crm_token"}}},
            "output_as": "echoed",
        },
        inputs={"b": 5},
    )
    assert done["status"] == "succeeded", done
    assert done["output"]["called"] == {"sum": 7}
    assert ("add", {"a": 2, "b": 5}) in mcp_server.calls
    assert mcp_server.call_headers[-1]["authorization"] == f"Bearer {SECRET_VALUE}"

    # The server echoed the headers back (with the token): the result is scrubbed before it is stored.
    assert done["output"]["seen"] == {"token": "[REDACTED]"}
    assert done["output"]["echoed"] == {"text": "[REDACTED]"}
    assert ("echo", {"text": SECRET_VALUE}) in mcp_server.calls, "the tool got the value"
    assert attempts(done, "argument")[-1]["config"]["args"] == {"text": {"$secret": "crm_token"}}
    assert SECRET_VALUE not in str(done)
    assert SECRET_VALUE not in await database_text(app)
    assert SECRET_VALUE not in worker.log_path.read_text(errors="replace")
    assert SECRET_VALUE not in caplog.text


async def test_a_secret_bound_to_another_host_never_reaches_an_mcp_tool(
    factory: Factory,
    mcp_server: McpTestServer,
    stack: tuple[ServiceProcess, ServiceProcess],
    harvest,
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    value = "bound-" + uuid.uuid4().hex
    body = {"value": value, "hosts": ["api.example.com"]}
    assert (await owner.request("PUT", owner.space_path("/secrets/other_api"), json=body)).status_code == 201
    created = await connect(owner, mcp_server.url)
    assert await harvest(created["id"]) == "ok"
    step = call_step("crm.echo", {"text": {"$secret": "other_api"}})
    # Saving knows the tool's server: the secret may not go there.
    refused = await owner.request(
        "POST", owner.space_path("/automations/validate"), json={"definition": definition(step)}
    )
    assert [(e["path"], e["code"]) for e in refused.json()["errors"]] == [
        ("/plan/0/config/args/text", "secret_host_refused")
    ]
    assert ("echo", {"text": value}) not in mcp_server.calls


async def test_a_connection_never_sends_a_token_bound_to_another_host(
    factory: Factory, mcp_server: McpTestServer, harvest
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    body = {"value": "bound-" + uuid.uuid4().hex, "hosts": ["api.example.com"]}
    assert (
        await owner.request("PUT", owner.space_path("/secrets/bound_token"), json=body)
    ).status_code == 201
    seen = len(mcp_server.seen_headers)
    created = await connect(owner, mcp_server.url, auth={"type": "bearer", "secret": "bound_token"})
    assert await harvest(created["id"]) == "error"
    shown = await connection(owner, created["id"])
    assert "may only be sent to api.example.com" in shown["harvest_error"]
    assert body["value"] not in str(shown)
    assert len(mcp_server.seen_headers) == seen, "no request reached the server"


async def test_tool_errors_and_timeouts_fail_the_step(
    factory: Factory, mcp_server: McpTestServer, stack, harvest
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    created = await connect(owner, mcp_server.url)
    await harvest(created["id"])

    failed = await run_steps(owner, call_step("crm.fail", {"message": "no such\x1b customer\n\nsorry"}))
    assert failed["status"] == "failed"
    error = attempts(failed, "call")[-1]["error"]
    assert error["code"] == "mcp_tool_error"
    assert error["message"] == "fail: no such customer sorry"

    slow = await run_steps(owner, call_step("crm.slow", {"seconds": 30}, timeout_seconds=1))
    assert slow["status"] == "failed", slow
    assert attempts(slow, "call")[-1]["error"]["code"] == "step_timeout"

    bad_args = await owner.request(
        "POST",
        owner.space_path("/automations"),
        json={"definition": definition(call_step("crm.add", {"a": "one"}))},
    )
    assert bad_args.status_code == 422
    assert bad_args.json()["error"]["details"][0]["path"] == "/definition/plan/0/config/args/a"


async def test_a_server_that_went_away_fails_the_step_clearly(
    factory: Factory, mcp_server: McpTestServer, stack, harvest
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    created = await connect(owner, mcp_server.url)
    await harvest(created["id"])
    patched = await owner.request(
        "PATCH", owner.space_path(f"/mcp/connections/{created['id']}"), json={"url": "http://127.0.0.1:9/mcp"}
    )
    assert patched.status_code == 200
    done = await run_steps(owner, call_step("crm.echo", {"text": "hi"}))
    assert done["status"] == "failed"
    assert attempts(done, "call")[-1]["error"]["code"] == "mcp_unreachable"


async def test_another_space_cannot_see_or_call_the_tool(
    factory: Factory, mcp_server: McpTestServer, stack, harvest
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    created = await connect(owner, mcp_server.url)
    await harvest(created["id"])
    stranger = await factory.owner("Other")

    catalog = (await stranger.request("GET", stranger.space_path("/catalog"))).json()["capabilities"]
    assert not [c for c in catalog if c["id"].startswith("crm.")]
    shared = (await stranger.request("GET", "/api/v1/catalog")).json()["capabilities"]
    assert not [c for c in shared if c["tier"] == "mcp"]

    for steps in (
        [call_step("crm.echo", {"text": "x"})],
        [
            {
                "step_id": "a",
                "action": "agent_task",
                "config": {"prompt": "p", "model": TEST_MODEL, "tools": ["crm.*"]},
            }
        ],
    ):
        refused = await stranger.request(
            "POST", stranger.space_path("/automations"), json={"definition": definition(*steps)}
        )
        assert refused.status_code == 422, refused.text
        assert refused.json()["error"]["details"][0]["code"] == "unknown_capability"

    # A capability id sneaking in through a template is refused when the step runs.
    done = await run_steps(stranger, call_step("{{ inputs.cap }}", {"text": "x"}), inputs={"cap": "crm.echo"})
    assert done["status"] == "failed"
    assert attempts(done, "call")[-1]["error"]["code"] == "unknown_capability"
    assert ("echo", {"text": "x"}) not in mcp_server.calls


def _add_then_answer(body: dict[str, Any]) -> Reply | ToolCall:
    """The model asks for the MCP tool until the conversation holds its result, then answers."""
    if any(message["role"] == "tool" for message in body["messages"]):
        return json_reply({"answer": 42})
    return tool_call("crm__add", {"a": 20, "b": 22})


async def test_agent_task_uses_an_mcp_tool(
    factory: Factory, mcp_server: McpTestServer, fake_llm: FakeLlm, stack, harvest
) -> None:  # type: ignore[no-untyped-def]
    fake_llm.reset()
    owner = await factory.owner()
    created = await connect(owner, mcp_server.url)
    await harvest(created["id"])
    # Answered by the conversation, not in order: the test's short lease can be lost under load, and the
    # claim that takes the run over asks the model again from the start of the step.
    fake_llm.answer_by(_add_then_answer)
    step = {
        "step_id": "think",
        "action": "agent_task",
        "config": {
            "prompt": "Add things.",
            "model": TEST_MODEL,
            "tools": ["crm.add"],
            "output_schema": {"type": "object", "properties": {"answer": {"type": "integer"}}},
        },
        "output_as": "thought",
    }
    done = await run_steps(owner, step)
    # A claim that lost the run still ends its attempt: wait for that, so no late model call of this
    # test reaches the next test's script.
    deadline = time.monotonic() + 60
    while any(attempt["status"] == "running" for attempt in done["steps"]):
        assert time.monotonic() < deadline, done["steps"]
        await asyncio.sleep(0.2)
        done = await get_run(owner, done["id"])
    answered = [m["content"] for r in fake_llm.requests for m in r["messages"] if m["role"] == "tool"]
    fake_llm.reset()
    assert done["status"] == "succeeded", done
    assert done["output"]["thought"] == {"answer": 42}
    assert ("add", {"a": 20, "b": 22}) in mcp_server.calls
    assert answered, "the tool's result went back to the model"
    assert all("42" in content for content in answered), answered


async def test_a_stdio_server_declared_by_the_operator(factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    response = await owner.request(
        "POST",
        owner.space_path("/mcp/connections"),
        json={"name": "Shouter", "transport": "stdio", "server": "shouter", "tool_prefix": "loud"},
    )
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["url"] is None
    assert created["server"] == "shouter"
    # Harvested by the worker from the system queue, right after the create.
    shown = await _settled(owner, created["id"])
    assert shown["harvest_status"] == "ok", shown
    assert shown["tool_count"] == 1
    done = await run_steps(owner, call_step("loud.shout", {"text": "hello"}))
    assert done["status"] == "succeeded", done
    assert done["output"]["called"] == {"text": "hey HELLO", "leaked": []}


async def test_harvest_through_the_worker_and_a_changing_list(
    factory: Factory, mcp_server: McpTestServer, stack
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    created = await connect(owner, mcp_server.url)
    shown = await _settled(owner, created["id"])
    assert shown["harvest_status"] == "ok"
    mcp_server.tools["late"] = tool("late", read_only=True)
    accepted = await owner.request("POST", owner.space_path(f"/mcp/connections/{created['id']}/harvest"))
    assert accepted.status_code == 202
    shown = await _settled(owner, created["id"])
    assert shown["tool_count"] == 6
    done = await run_steps(owner, call_step("crm.late", {}))
    assert done["status"] == "succeeded", done


async def _settled(owner: Caller, connection_id: str) -> dict[str, Any]:
    for _ in range(150):
        shown = await connection(owner, connection_id)
        if shown["harvest_status"] != "pending":
            return shown
        await asyncio.sleep(0.2)
    raise AssertionError(f"the harvest of {connection_id} did not finish")
