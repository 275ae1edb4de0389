"""Drift found before a call, through a real worker: a connection listed longer ago than
AUTOMATIONS_MCP_RELIST_AFTER_SECONDS (300 s) is listed again before its tool is called; a tool changed or
gone since harvest needs approval for that call; a fresh listing is never repeated; `/metrics` counts it."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text

from app.devstack import free_port
from tests.mcp.conftest import connect, connection, tools
from tests.support.approvals import set_modes, the_approval
from tests.support.factories import Caller, Factory
from tests.support.mcp_server import McpTestServer, tool
from tests.support.processes import ServiceProcess
from tests.support.runs import definition, fire, start, wait_for

NUMBER = {"type": "number"}


def add_step(step_id: str = "call") -> dict[str, Any]:
    config = {"capability": "crm.add", "args": {"a": 2, "b": 3}}
    return {"step_id": step_id, "action": "call_tool", "config": config, "output_as": step_id}


async def age_listing(app: FastAPI, connection_id: str, minutes: int = 10) -> None:
    """The connection's tools were last listed `minutes` ago (as after a day without harvest)."""
    async with app.state.sessionmaker.begin() as session:
        await session.execute(
            text(
                "UPDATE mcp_connections SET last_harvested_at = now() - make_interval(mins => :minutes)"
                " WHERE id = :id"
            ),
            {"minutes": minutes, "id": connection_id},
        )


async def harvested(owner: Caller, mcp_server: McpTestServer, harvest: Any) -> str:
    """A connection whose first harvest (the one creating it asks the worker for) is done."""
    created = await connect(owner, mcp_server.url)
    deadline = time.monotonic() + 60
    while (await connection(owner, created["id"]))["harvest_status"] != "ok":
        assert time.monotonic() < deadline, "the worker did not harvest the new connection"
        await asyncio.sleep(0.1)
    return str(created["id"])


def drift_samples(scrape: str) -> dict[tuple[str, str], float]:
    found: dict[tuple[str, str], float] = {}
    for family in text_string_to_metric_families(scrape):
        for sample in family.samples:
            if sample.name == "automations_mcp_drift_total":
                found[(sample.labels["detected_by"], sample.labels["change"])] = sample.value
    return found


@contextlib.asynccontextmanager
async def api_scrape(service_env: dict[str, str], tmp_path: Path) -> Any:
    """An API process with the worker's home: its `/metrics` sums what the worker counted."""
    port = free_port()
    env = {**service_env, "AUTOMATIONS_API_WORKERS": "1"}
    process = ServiceProcess.cli("api-drift", ["api", "--port", str(port)], env, tmp_path)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert process.alive(), process.log_tail()
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            assert time.monotonic() < deadline, process.log_tail()
            time.sleep(0.2)
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            yield client
    finally:
        process.stop(graceful=False)


async def test_a_schema_changed_since_harvest_holds_the_call_for_approval_and_is_counted(
    app: FastAPI,
    factory: Factory,
    mcp_server: McpTestServer,
    stack: tuple[ServiceProcess, ServiceProcess],
    harvest: Any,
    service_env: dict[str, str],
    tmp_path: Path,
) -> None:
    owner = await factory.owner()
    connection_id = await harvested(owner, mcp_server, harvest)
    # The server changes the tool after harvest: one more required argument.
    mcp_server.tools["add"] = tool(
        "add",
        input_schema={
            "type": "object",
            "properties": {"a": NUMBER, "b": NUMBER, "c": NUMBER},
            "required": ["a", "b", "c"],
        },
        read_only=True,
    )
    await age_listing(app, connection_id)
    lists_before = mcp_server.list_calls

    async with api_scrape(service_env, tmp_path) as scrape:
        before = drift_samples((await scrape.get("/metrics")).text)
        _, run = await start(owner, definition(add_step()))
        waiting = await wait_for(owner, run["id"], {"awaiting_approval", "succeeded", "failed"})
        after = drift_samples((await scrape.get("/metrics")).text)

    assert waiting["status"] == "awaiting_approval", waiting
    approval = await the_approval(owner, run["id"])
    assert (approval["capability"], approval["mode_source"]) == ("crm.add", "drift_guard")
    assert ("add", {"a": 2, "b": 3}) not in mcp_server.calls, "the drifted tool was not called"
    assert mcp_server.list_calls == lists_before + 1
    # Recorded as a harvest records drift: the tool shows drifted with its previous hash kept.
    shown = (await tools(owner, connection_id))["add"]
    assert shown["drifted"] is True
    assert shown["drifted_at"] is not None
    assert after.get(("call", "changed"), 0) - before.get(("call", "changed"), 0) == 1
    assert set(after) <= {(by, change) for by in ("harvest", "call") for change in ("changed", "removed")}


async def test_a_tool_gone_since_harvest_holds_the_call_for_approval(
    app: FastAPI,
    factory: Factory,
    mcp_server: McpTestServer,
    stack: tuple[ServiceProcess, ServiceProcess],
    harvest: Any,
) -> None:
    owner = await factory.owner()
    connection_id = await harvested(owner, mcp_server, harvest)
    del mcp_server.tools["add"]
    await age_listing(app, connection_id)

    _, run = await start(owner, definition(add_step()))
    waiting = await wait_for(owner, run["id"], {"awaiting_approval", "succeeded", "failed"})

    assert waiting["status"] == "awaiting_approval", waiting
    assert (await the_approval(owner, run["id"]))["mode_source"] == "drift_guard"
    assert (await tools(owner, connection_id))["add"]["removed"] is True


async def test_a_fresh_listing_is_not_repeated_before_calls(
    factory: Factory,
    mcp_server: McpTestServer,
    stack: tuple[ServiceProcess, ServiceProcess],
    harvest: Any,
) -> None:
    owner = await factory.owner()
    await harvested(owner, mcp_server, harvest)
    lists_before = mcp_server.list_calls

    for _ in range(2):
        _, run = await start(owner, definition(add_step("one"), add_step("two")))
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        assert done["output"]["two"] == {"sum": 5}

    assert mcp_server.list_calls == lists_before, "harvested within 5 minutes: no tools/list before a call"


async def test_a_stale_listing_is_listed_once_for_many_calls_and_unchanged_tools_run(
    app: FastAPI,
    factory: Factory,
    mcp_server: McpTestServer,
    stack: tuple[ServiceProcess, ServiceProcess],
    harvest: Any,
) -> None:
    owner = await factory.owner()
    connection_id = await harvested(owner, mcp_server, harvest)
    await age_listing(app, connection_id)
    lists_before = mcp_server.list_calls

    _, run = await start(owner, definition(add_step("one"), add_step("two"), add_step("three")))
    done = await wait_for(owner, run["id"])

    assert done["status"] == "succeeded", done
    assert mcp_server.list_calls == lists_before + 1
    assert (await tools(owner, connection_id))["add"]["drifted"] is False


async def test_a_denied_call_causes_no_listing(
    app: FastAPI,
    factory: Factory,
    mcp_server: McpTestServer,
    stack: tuple[ServiceProcess, ServiceProcess],
    harvest: Any,
) -> None:
    owner = await factory.owner()
    connection_id = await harvested(owner, mcp_server, harvest)
    await age_listing(app, connection_id)
    lists_before = mcp_server.list_calls
    automation = await owner.create_automation(definition(add_step()))
    await set_modes(owner, {"crm.add": "deny"}, automation["id"])
    await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
    run = await fire(owner, automation["id"])
    done = await wait_for(owner, run["id"])

    assert done["status"] == "failed", done
    assert mcp_server.list_calls == lists_before
