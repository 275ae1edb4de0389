"""MCP connections through the API: create, read, change, delete, and every bad input as a clear 4xx."""

from __future__ import annotations

import dataclasses

import pytest
from fastapi import FastAPI

from app.errors import ValidationFailed
from app.persistence.transaction import transaction
from app.services.mcp.connections import ConnectionSpec, mcp_connection_service
from tests.mcp.conftest import access_of, connect, connection, tools
from tests.support.factories import Factory
from tests.support.mcp_server import McpTestServer


class TestCreate:
    async def test_created_pending_then_harvested(
        self, factory: Factory, mcp_server: McpTestServer, harvest
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        created = await connect(owner, mcp_server.url)
        assert created["harvest_status"] == "pending"
        assert created["auth"] == {"type": "none"}
        assert created["tool_count"] == 0
        assert await harvest(created["id"]) == "ok"
        shown = await connection(owner, created["id"])
        assert shown["harvest_status"] == "ok"
        assert shown["tool_count"] == 5
        assert shown["last_harvested_at"] is not None
        listed = await owner.request("GET", owner.space_path("/mcp/connections"))
        assert [item["id"] for item in listed.json()["items"]] == [created["id"]]

    async def test_members_read_but_do_not_create(self, factory: Factory, mcp_server: McpTestServer) -> None:
        owner = await factory.owner()
        created = await connect(owner, mcp_server.url)
        member = await factory.member(owner)
        refused = await member.request(
            "POST",
            member.space_path("/mcp/connections"),
            json={"name": "X", "url": mcp_server.url, "tool_prefix": "x"},
        )
        assert refused.status_code == 403
        assert (
            await member.request("GET", member.space_path(f"/mcp/connections/{created['id']}"))
        ).status_code == 200
        harvest = await member.request("POST", member.space_path(f"/mcp/connections/{created['id']}/harvest"))
        assert harvest.status_code == 403

    async def test_another_space_sees_nothing(self, factory: Factory, mcp_server: McpTestServer) -> None:
        owner = await factory.owner()
        created = await connect(owner, mcp_server.url)
        stranger = await factory.owner("Other")
        for method, suffix in [
            ("GET", ""),
            ("PATCH", ""),
            ("DELETE", ""),
            ("POST", "/harvest"),
            ("GET", "/tools"),
            ("POST", "/tools/echo/confirm"),
        ]:
            kwargs = {"json": {"name": "mine"}} if method == "PATCH" else {}
            response = await stranger.request(
                method, stranger.space_path(f"/mcp/connections/{created['id']}{suffix}"), **kwargs
            )
            assert response.status_code == 404, (method, suffix, response.text)
        assert (await stranger.request("GET", stranger.space_path("/mcp/connections"))).json()["items"] == []


BAD_BODIES = [
    ({"url": "ftp://example.com/mcp"}, "egress_denied", "/url"),
    ({"url": "not a url"}, "egress_denied", "/url"),
    ({"url": "http://10.0.0.7/mcp"}, "egress_denied", "/url"),
    ({"url": "http://127.0.0.2:9/mcp"}, "egress_denied", "/url"),
    ({"url": "http://user:pw@example.com/mcp"}, "egress_denied", "/url"),
    ({"auth": {"type": "basic"}}, "validation_failed", None),
    ({"auth": {"type": "bearer"}}, "validation_failed", None),
    ({"auth": {"type": "bearer", "secret": "nope"}}, "secret_not_found", "/auth/secret"),
    ({"auth": {"type": "header", "header": "X-Key", "secret": "nope"}}, "secret_not_found", "/auth/secret"),
    ({"tool_prefix": "mcp"}, "invalid_tool_prefix", "/tool_prefix"),
    ({"tool_prefix": "http"}, "invalid_tool_prefix", "/tool_prefix"),
    ({"tool_prefix": "Bad-Prefix"}, "invalid_tool_prefix", "/tool_prefix"),
    ({"transport": "stdio", "server": "missing", "url": None}, "unknown_stdio_server", "/server"),
    ({"transport": "stdio", "server": "shouter"}, "invalid_connection", "/url"),
    ({"transport": "stdio", "url": None}, "invalid_connection", "/server"),
    ({"transport": "stdio", "url": None, "command": "/bin/sh"}, "validation_failed", None),
    ({"url": None}, "invalid_url", "/url"),
    ({"extra": 1}, "validation_failed", None),
]


@pytest.mark.parametrize(("change", "code", "path"), BAD_BODIES)
async def test_bad_input_is_a_clear_4xx_and_writes_nothing(
    factory: Factory,
    mcp_server: McpTestServer,
    change: dict,
    code: str,
    path: str | None,  # type: ignore[type-arg]
) -> None:
    owner = await factory.owner()
    body = {"name": "CRM", "url": mcp_server.url, "tool_prefix": "crm", **change}
    body = {key: value for key, value in body.items() if value is not None}
    response = await owner.request("POST", owner.space_path("/mcp/connections"), json=body)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == code, error
    if path is not None:
        assert [detail["path"] for detail in error["details"]] == [path]
    assert (await owner.request("GET", owner.space_path("/mcp/connections"))).json()["items"] == []


async def test_the_refusal_names_the_reason(factory: Factory) -> None:
    owner = await factory.owner()
    response = await owner.request(
        "POST",
        owner.space_path("/mcp/connections"),
        json={"name": "CRM", "url": "http://192.168.1.10/mcp", "tool_prefix": "crm"},
    )
    assert response.status_code == 422
    assert "private" in response.json()["error"]["message"]


async def test_a_name_resolving_to_a_private_address_is_refused_at_create(
    app: FastAPI, factory: Factory
) -> None:
    owner = await factory.owner()
    answers = {"crm.example.test": ["10.20.30.40"]}
    settings = dataclasses.replace(app.state.runtime.mcp, resolver=lambda host, port: answers[host])
    access = access_of(owner)
    spec = ConnectionSpec(name="CRM", url="http://crm.example.test/mcp", tool_prefix="crm")
    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        with pytest.raises(ValidationFailed) as refused:
            await mcp_connection_service.create(session, access, settings, spec)
    assert refused.value.code == "egress_denied"
    assert "10.20.30.40" in refused.value.message


async def test_duplicate_name_and_prefix_conflict(factory: Factory, mcp_server: McpTestServer) -> None:
    owner = await factory.owner()
    await connect(owner, mcp_server.url)
    again = await owner.request(
        "POST",
        owner.space_path("/mcp/connections"),
        json={"name": "CRM", "url": mcp_server.url, "tool_prefix": "other"},
    )
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "connection_exists"
    prefix = await owner.request(
        "POST",
        owner.space_path("/mcp/connections"),
        json={"name": "Other", "url": mcp_server.url, "tool_prefix": "crm"},
    )
    assert prefix.status_code == 409
    assert prefix.json()["error"]["code"] == "tool_prefix_taken"


class TestChange:
    async def test_patch_auth_and_prefix_asks_for_a_harvest(
        self, factory: Factory, mcp_server: McpTestServer, harvest
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        await owner.request("PUT", owner.space_path("/secrets/crm_token"), json={"value": "t0ken-value"})
        created = await connect(owner, mcp_server.url)
        await harvest(created["id"])
        patched = await owner.request(
            "PATCH",
            owner.space_path(f"/mcp/connections/{created['id']}"),
            json={"tool_prefix": "sales", "auth": {"type": "bearer", "secret": "crm_token"}},
        )
        assert patched.status_code == 200, patched.text
        body = patched.json()
        assert body["harvest_status"] == "pending"
        assert body["auth"] == {"type": "bearer", "secret": "crm_token"}
        assert "t0ken-value" not in patched.text
        await harvest(created["id"])
        assert {tool["capability_id"] for tool in (await tools(owner, created["id"])).values()} >= {
            "sales.echo"
        }

    async def test_delete_removes_the_tools(
        self, factory: Factory, mcp_server: McpTestServer, harvest
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        created = await connect(owner, mcp_server.url)
        await harvest(created["id"])
        catalog = await owner.request("GET", owner.space_path("/catalog"))
        assert "crm.echo" in {c["id"] for c in catalog.json()["capabilities"]}
        deleted = await owner.request("DELETE", owner.space_path(f"/mcp/connections/{created['id']}"))
        assert deleted.status_code == 204
        catalog = await owner.request("GET", owner.space_path("/catalog"))
        assert "crm.echo" not in {c["id"] for c in catalog.json()["capabilities"]}
        gone = await owner.request("GET", owner.space_path(f"/mcp/connections/{created['id']}"))
        assert gone.status_code == 404

    async def test_harvest_request_is_accepted(self, factory: Factory, mcp_server: McpTestServer) -> None:
        owner = await factory.owner()
        created = await connect(owner, mcp_server.url)
        response = await owner.request("POST", owner.space_path(f"/mcp/connections/{created['id']}/harvest"))
        assert response.status_code == 202
        assert response.json()["harvest_status"] == "pending"
