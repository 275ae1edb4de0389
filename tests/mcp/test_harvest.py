"""Harvest against a real MCP server on loopback: pagination, annotations, drift, removal, unusable
tools, the cap, clashes, and failures that mark only their own connection."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import UTC, datetime, timedelta

from fastapi import FastAPI
from sqlalchemy import text

from app.jobs import job_scope
from app.services.mcp.connections import ConnectionSpec
from app.services.mcp.endpoints import McpSettings
from app.services.mcp.harvest import harvest_service
from tests.mcp.conftest import connect, connection, create_with, tools
from tests.support.factories import Factory
from tests.support.loopback import Loopback
from tests.support.mcp_server import McpTestServer, tool

OBJECT_WITH_TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


async def test_tools_with_annotations_risk_and_schemas(
    factory: Factory, mcp_server: McpTestServer, harvest
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    created = await connect(owner, mcp_server.url)
    await harvest(created["id"])
    found = await tools(owner, created["id"])
    assert set(found) == {"echo", "add", "fail", "slow", "reflect"}
    echo, add, fail, slow = found["echo"], found["add"], found["fail"], found["slow"]
    assert echo["capability_id"] == "crm.echo"
    assert echo["risk"] == "read"
    assert echo["destructive"] is False
    assert echo["annotations"] == {"readOnlyHint": True}
    assert add["output_schema"]["required"] == ["sum"]
    assert fail["risk"] == "write"
    assert fail["destructive"] is True
    assert slow["risk"] == "write"
    assert slow["annotations"] == {}
    assert all(
        len(t["schema_hash"]) == 64 and t["schema_hash"] == t["confirmed_hash"] for t in found.values()
    )
    assert not any(t["drifted"] or t["removed"] or t["unusable_reason"] for t in found.values())
    catalog = (await owner.request("GET", owner.space_path("/catalog"))).json()["capabilities"]
    mcp = {c["id"]: c for c in catalog if c["tier"] == "mcp"}
    assert set(mcp) == {"crm.echo", "crm.add", "crm.fail", "crm.slow", "crm.reflect"}
    assert mcp["crm.echo"]["risk"] == "read"
    assert {c["tier"] for c in catalog} == {"native", "mcp"}


async def test_pagination_is_followed_to_the_end(
    factory: Factory, mcp_server: McpTestServer, harvest
) -> None:  # type: ignore[no-untyped-def]
    mcp_server.page_size = 2
    for index in range(7):
        mcp_server.tools[f"extra_{index}"] = tool(f"extra_{index}")
    owner = await factory.owner()
    created = await connect(owner, mcp_server.url)
    await harvest(created["id"])
    assert len(await tools(owner, created["id"])) == 12
    assert (await connection(owner, created["id"]))["tool_count"] == 12


async def test_a_changing_list_drifts_removes_and_adds(
    factory: Factory, mcp_server: McpTestServer, harvest
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    created = await connect(owner, mcp_server.url)
    await harvest(created["id"])
    before = await tools(owner, created["id"])

    # Only a description changes: no drift. Only `required` changes: drift. A tool goes, one comes.
    mcp_server.tools["reflect"] = tool("reflect", description="Now described differently.", read_only=True)
    changed = dict(mcp_server.tools["echo"].input_schema)
    changed["required"] = []
    mcp_server.tools["echo"] = tool("echo", input_schema=changed, read_only=True)
    del mcp_server.tools["slow"]
    mcp_server.tools["fresh"] = tool("fresh", read_only=True)
    await harvest(created["id"])
    after = await tools(owner, created["id"])

    assert after["reflect"]["drifted"] is False
    assert after["reflect"]["description"] == "Now described differently."
    assert after["reflect"]["schema_hash"] == before["reflect"]["schema_hash"]
    echo = after["echo"]
    assert echo["drifted"] is True
    assert echo["previous_hash"] == before["echo"]["schema_hash"]
    assert echo["schema_hash"] != echo["previous_hash"]
    assert echo["confirmed_hash"] == before["echo"]["schema_hash"]
    assert echo["drifted_at"] is not None
    assert after["slow"]["removed"] is True
    assert after["fresh"]["removed"] is False
    catalog = {
        c["id"]: c for c in (await owner.request("GET", owner.space_path("/catalog"))).json()["capabilities"]
    }
    assert "crm.slow" not in catalog
    assert "crm.fresh" in catalog

    confirmed = await owner.request(
        "POST", owner.space_path(f"/mcp/connections/{created['id']}/tools/echo/confirm")
    )
    assert confirmed.status_code == 200
    assert confirmed.json()["drifted"] is False
    assert confirmed.json()["confirmed_hash"] == echo["schema_hash"]

    # A tool that stops claiming to be read-only has drifted, and its risk follows the hint.
    mcp_server.tools["echo"] = tool("echo", input_schema=changed)
    await harvest(created["id"])
    echo = (await tools(owner, created["id"]))["echo"]
    assert echo["drifted"] is True
    assert echo["risk"] == "write"

    # A removed tool listed again comes back.
    mcp_server.tools["slow"] = tool("slow")
    await harvest(created["id"])
    assert (await tools(owner, created["id"]))["slow"]["removed"] is False


async def test_admin_risk_override(factory: Factory, mcp_server: McpTestServer, harvest) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    created = await connect(owner, mcp_server.url)
    await harvest(created["id"])
    path = owner.space_path(f"/mcp/connections/{created['id']}/tools/slow")
    patched = await owner.request("PATCH", path, json={"risk": "read"})
    assert patched.status_code == 200
    assert patched.json()["risk"] == "read"
    assert patched.json()["risk_hint"] == "write"
    await harvest(created["id"])
    assert (await tools(owner, created["id"]))["slow"]["risk"] == "read", "a harvest keeps the override"
    catalog = {
        c["id"]: c for c in (await owner.request("GET", owner.space_path("/catalog"))).json()["capabilities"]
    }
    assert catalog["crm.slow"]["risk"] == "read"
    assert (await owner.request("PATCH", path, json={"risk": "maybe"})).status_code == 422
    assert (await owner.request("PATCH", path + "_nope", json={"risk": "read"})).status_code == 404
    member = await factory.member(owner)
    assert (await member.request("PATCH", path, json={"risk": "write"})).status_code == 403
    reset = await owner.request("PATCH", path, json={"risk": None})
    assert reset.json()["risk"] == "write"


async def test_invalid_schemas_clashes_and_empty_names_are_unusable(
    factory: Factory, mcp_server: McpTestServer, harvest
) -> None:  # type: ignore[no-untyped-def]
    mcp_server.tools = {
        "good": tool("good", read_only=True),
        "broken": tool("broken", input_schema={"type": "object", "properties": {"x": {"type": "nonsense"}}}),
        "bad_output": tool("bad_output", output_schema={"type": "object", "minimum": "ten"}),
        "Get-Note": tool("Get-Note"),
        "get_note": tool("get_note"),
        "!!!": tool("!!!"),
    }
    owner = await factory.owner()
    created = await connect(owner, mcp_server.url)
    assert await harvest(created["id"]) == "ok"
    found = await tools(owner, created["id"])
    assert found["good"]["unusable_reason"] is None
    assert "not a valid JSON Schema" in found["broken"]["unusable_reason"]
    assert "outputSchema" in found["bad_output"]["unusable_reason"]
    assert "crm.get_note" in found["Get-Note"]["unusable_reason"]
    assert "crm.get_note" in found["get_note"]["unusable_reason"]
    assert "no capability id" in found["!!!"]["unusable_reason"]
    shown = await connection(owner, created["id"])
    assert shown["harvest_status"] == "ok"
    assert "broken" in shown["harvest_notice"]
    catalog = {
        c["id"] for c in (await owner.request("GET", owner.space_path("/catalog"))).json()["capabilities"]
    }
    assert "crm.good" in catalog
    assert not {"crm.broken", "crm.bad_output", "crm.get_note"} & catalog


async def test_ten_thousand_tools_are_capped_at_one_thousand(
    factory: Factory, mcp_server: McpTestServer, harvest
) -> None:  # type: ignore[no-untyped-def]
    mcp_server.tools = {f"t{index}": tool(f"t{index}") for index in range(10_000)}
    mcp_server.page_size = 500
    owner = await factory.owner()
    created = await connect(owner, mcp_server.url)
    assert await harvest(created["id"]) == "ok"
    shown = await connection(owner, created["id"])
    assert shown["tool_count"] == 1000
    assert shown["tools_truncated"] is True
    assert "only the first 1000" in shown["harvest_notice"]
    assert len(await tools(owner, created["id"])) == 1000


async def test_failures_mark_only_their_own_connection(
    factory: Factory, mcp_server: McpTestServer, loopback: Loopback, harvest
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    good = await connect(owner, mcp_server.url)
    await harvest(good["id"])
    down = await connect(owner, "http://127.0.0.1:9/mcp", name="Down", tool_prefix="down")
    garbage = await connect(owner, f"{loopback.url}/ok", name="Garbage", tool_prefix="junk")
    assert await harvest(down["id"]) == "error"
    assert await harvest(garbage["id"]) == "error"
    down_shown = await connection(owner, down["id"])
    assert down_shown["harvest_status"] == "error"
    assert down_shown["harvest_error"].startswith("mcp_unreachable:")
    garbage_shown = await connection(owner, garbage["id"])
    assert garbage_shown["harvest_status"] == "error"
    assert garbage_shown["harvest_error"]
    assert (await connection(owner, good["id"]))["harvest_status"] == "ok"
    catalog = await owner.request("GET", owner.space_path("/catalog"))
    assert catalog.status_code == 200
    assert "crm.echo" in {c["id"] for c in catalog.json()["capabilities"]}

    # A server that was fine and then fails keeps its last good tools.
    mcp_server.required_bearer = "now-required"
    assert await harvest(good["id"]) == "error"
    assert (await connection(owner, good["id"]))["harvest_error"].startswith("mcp_unauthorized:")
    assert "crm.echo" in {
        c["id"] for c in (await owner.request("GET", owner.space_path("/catalog"))).json()["capabilities"]
    }


async def test_bearer_from_the_vault_and_a_wrong_one(
    factory: Factory, mcp_server: McpTestServer, harvest
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    await owner.request("PUT", owner.space_path("/secrets/crm_token"), json={"value": "right-token-value"})
    await owner.request("PUT", owner.space_path("/secrets/crm_key"), json={"value": "header-key-value"})
    mcp_server.required_bearer = "right-token-value"
    created = await connect(owner, mcp_server.url, auth={"type": "bearer", "secret": "crm_token"})
    assert await harvest(created["id"]) == "ok"
    assert mcp_server.seen_headers[-1]["authorization"] == "Bearer right-token-value"
    await owner.request("PUT", owner.space_path("/secrets/crm_token"), json={"value": "wrong-token-value"})
    assert await harvest(created["id"]) == "error"
    assert (await connection(owner, created["id"]))["harvest_error"].startswith("mcp_unauthorized:")
    await owner.request("DELETE", owner.space_path("/secrets/crm_token"))
    assert await harvest(created["id"]) == "error"
    assert (await connection(owner, created["id"]))["harvest_error"].startswith("secret_missing:")

    mcp_server.required_bearer = None
    header = await connect(
        owner,
        mcp_server.url,
        name="Keyed",
        tool_prefix="keyed",
        auth={"type": "header", "header": "X-Api-Key", "secret": "crm_key"},
    )
    assert await harvest(header["id"]) == "ok"
    assert mcp_server.seen_headers[-1]["x-api-key"] == "header-key-value"


async def test_a_name_that_now_resolves_to_a_private_address_is_refused_at_connect(
    app: FastAPI, factory: Factory, mcp_server: McpTestServer, harvest
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    answers = {"mcp.example.test": ["127.0.0.1"]}
    base: McpSettings = app.state.runtime.mcp
    settings = dataclasses.replace(base, resolver=lambda host, port: answers[host])
    url = mcp_server.url.replace("127.0.0.1", "mcp.example.test")
    created = {
        "id": await create_with(app, owner, settings, ConnectionSpec(name="DNS", url=url, tool_prefix="dns"))
    }
    assert await harvest(created["id"], settings) == "ok"
    answers["mcp.example.test"] = ["10.9.8.7"]  # the name now points inside the network
    calls = len(mcp_server.seen_headers)
    assert await harvest(created["id"], settings) == "error"
    shown = await connection(owner, created["id"])
    assert shown["harvest_error"].startswith("egress_denied:")
    assert "10.9.8.7" in shown["harvest_error"]
    assert len(mcp_server.seen_headers) == calls, "nothing was sent"


async def test_a_deleted_connection_is_gone_for_its_harvest(
    factory: Factory, mcp_server: McpTestServer, harvest
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    created = await connect(owner, mcp_server.url)
    await owner.request("DELETE", owner.space_path(f"/mcp/connections/{created['id']}"))
    assert await harvest(created["id"]) == "gone"
    assert await harvest(str(uuid.uuid4())) == "gone"


async def test_the_daily_sweep_asks_again_only_for_old_harvests(
    app: FastAPI, factory: Factory, mcp_server: McpTestServer, harvest
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    old = await connect(owner, mcp_server.url)
    fresh = await connect(owner, mcp_server.url, name="Fresh", tool_prefix="fresh")
    await harvest(old["id"])
    await harvest(fresh["id"])
    now = datetime.now(UTC)
    # Aged and swept in one transaction: the session's beat sweeps every tick too, and must not be the
    # one to see the aged harvest first.
    with job_scope() as jobs:
        async with app.state.sessionmaker.begin() as session:
            await session.execute(
                text(
                    "UPDATE mcp_connections SET last_harvested_at = now() - interval '25 hours'"
                    " WHERE id = :id"
                ),
                {"id": old["id"]},
            )
            assert await harvest_service.sweep(session, now, timedelta(hours=24)) == 1
    assert [(job.name, job.args, job.queue) for job in jobs] == [
        ("system.mcp_harvest", (old["id"],), "system")
    ]
    with job_scope() as again:
        async with app.state.sessionmaker.begin() as session:
            assert await harvest_service.sweep(session, now, timedelta(hours=24)) == 0, "already asked"
    assert again == []
