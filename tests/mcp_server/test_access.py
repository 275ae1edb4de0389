"""Who may use a space's MCP server: only a member's token with the `mcp` scope, only for the automations
it lists, only in that member's spaces; and a scoped token can do nothing else."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from mcp.shared.exceptions import MCPError

from tests.mcp_server.conftest import active_tool, mcp_client, runs_of, scoped_token
from tests.support.factories import Caller, Factory

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def _post(caller: Caller, space_id: str, token: str | None) -> tuple[int, str]:
    headers = dict(MCP_HEADERS)
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    response = await caller.client.post(f"/api/v1/spaces/{space_id}/mcp", json=INITIALIZE, headers=headers)
    code = response.json()["error"]["code"] if response.status_code >= 400 else ""
    return response.status_code, code


class TestTokens:
    async def test_no_token_an_unscoped_token_and_a_bad_token_are_refused(self, factory: Factory) -> None:
        owner = await factory.owner()
        assert await _post(owner, owner.space_id, None) == (401, "unauthorized")
        assert await _post(owner, owner.space_id, "not-a-token") == (401, "invalid_token")
        # A token with full access is no agent's token: the MCP server wants one made for it.
        assert await _post(owner, owner.space_id, owner.token) == (403, "token_scope_missing")

    async def test_a_scoped_token_answers_initialize(self, factory: Factory) -> None:
        owner = await factory.owner()
        greeter = await active_tool(owner, "greet")
        token = await scoped_token(owner, greeter["id"])
        status, _ = await _post(owner, owner.space_id, token)
        assert status == 200

    async def test_a_scoped_token_is_refused_by_every_other_route(self, factory: Factory) -> None:
        owner = await factory.owner()
        greeter = await active_tool(owner, "greet")
        token = await scoped_token(owner, greeter["id"])
        agent = Caller(owner.client, token, owner.space_id, owner.user_id)
        for method, path in (
            ("GET", agent.space_path("/automations")),
            ("POST", agent.space_path(f"/automations/{greeter['id']}/runs")),
            ("GET", "/api/v1/tokens"),
            ("POST", "/api/v1/tokens"),
            ("GET", "/api/v1/me"),
        ):
            response = await agent.request(method, path, json={"name": "more"} if method == "POST" else None)
            assert response.status_code == 403, (method, path, response.text)
            assert response.json()["error"]["code"] == "token_scope_insufficient"
        assert await runs_of(owner, greeter["id"]) == []

    async def test_scopes_are_shown_in_the_token_list(self, factory: Factory) -> None:
        owner = await factory.owner()
        greeter = await active_tool(owner, "greet")
        await scoped_token(owner, greeter["id"], name="agent")
        listed = (await owner.request("GET", "/api/v1/tokens")).json()["items"]
        by_name = {token["name"]: token for token in listed}
        assert by_name["agent"]["scopes"] == {"mcp": {"automations": [greeter["id"]]}}
        assert all(token["scopes"] is None for name, token in by_name.items() if name != "agent")

    @pytest.mark.parametrize(
        ("scopes", "code"),
        [
            ({}, "token_scopes_empty"),
            ({"mcp": {"automations": []}}, "validation_failed"),
            ({"mcp": {"automations": ["not-an-id"]}}, "validation_failed"),
            ({"admin": True}, "validation_failed"),
        ],
    )
    async def test_malformed_scopes_are_refused(self, factory: Factory, scopes: dict, code: str) -> None:
        owner = await factory.owner()
        response = await owner.request("POST", "/api/v1/tokens", json={"name": "agent", "scopes": scopes})
        assert response.status_code == 422, response.text
        assert response.json()["error"]["code"] == code

    async def test_a_scope_naming_another_users_automation_is_refused(self, factory: Factory) -> None:
        alice = await factory.owner("Alice's")
        bob = await factory.owner("Bob's")
        theirs = await active_tool(alice, "greet")
        response = await bob.request(
            "POST",
            "/api/v1/tokens",
            json={"name": "agent", "scopes": {"mcp": {"automations": [theirs["id"]]}}},
        )
        assert response.status_code == 422, response.text
        assert response.json()["error"]["code"] == "scope_automation_not_found"
        assert response.json()["error"]["details"][0]["path"] == "/scopes/mcp/automations/0"


class TestWhatATokenSees:
    async def test_a_token_sees_and_calls_only_the_automations_it_lists(
        self, app: FastAPI, factory: Factory
    ) -> None:
        owner = await factory.owner()
        listed = await active_tool(owner, "greet")
        other = await active_tool(owner, "other")
        token = await scoped_token(owner, listed["id"])

        async with mcp_client(app, owner.space_id, token) as client:
            assert [tool.name for tool in (await client.list_tools()).tools] == ["greet"]
            with pytest.raises(MCPError, match="No tool named 'other'"):
                await client.call_tool("other", {"name": "Ada"})
        assert await runs_of(owner, other["id"]) == []

    async def test_a_paused_automation_is_not_listed_and_its_call_is_refused(
        self, app: FastAPI, factory: Factory
    ) -> None:
        owner = await factory.owner()
        greeter = await active_tool(owner, "greet")
        paused = await owner.request("POST", owner.space_path(f"/automations/{greeter['id']}/pause"))
        assert paused.status_code == 200, paused.text
        token = await scoped_token(owner, greeter["id"])

        async with mcp_client(app, owner.space_id, token) as client:
            assert (await client.list_tools()).tools == []
            result = await client.call_tool("greet", {"name": "Ada"})
        assert result.is_error
        assert result.structured_content is not None
        assert result.structured_content["error"]["code"] == "automation_paused"
        assert await runs_of(owner, greeter["id"]) == []

    async def test_an_automation_not_exposed_is_no_tool(self, app: FastAPI, factory: Factory) -> None:
        owner = await factory.owner()
        plain = await owner.create_automation()
        await owner.request("POST", owner.space_path(f"/automations/{plain['id']}/activate"))
        token = await scoped_token(owner, plain["id"])
        async with mcp_client(app, owner.space_id, token) as client:
            assert (await client.list_tools()).tools == []


class TestSpaces:
    async def test_a_token_of_another_space_gets_404_and_never_sees_its_tools(
        self, app: FastAPI, factory: Factory
    ) -> None:
        alice = await factory.owner("Alice's")
        bob = await factory.owner("Bob's")
        alices = await active_tool(alice, "greet")
        bobs = await active_tool(bob, "greet_bob")
        bob_token = await scoped_token(bob, bobs["id"])

        assert await _post(bob, alice.space_id, bob_token) == (404, "space_not_found")
        async with mcp_client(app, bob.space_id, bob_token) as client:
            assert [tool.name for tool in (await client.list_tools()).tools] == ["greet_bob"]
            with pytest.raises(MCPError):
                await client.call_tool("greet", {"name": "Ada"})
        assert await runs_of(alice, alices["id"]) == []

    async def test_a_token_listing_automations_of_two_spaces_sees_each_spaces_own(
        self, app: FastAPI, factory: Factory
    ) -> None:
        owner = await factory.owner("First")
        first = await active_tool(owner, "first_tool")
        made = await owner.request("POST", "/api/v1/spaces", json={"name": "Second"})
        assert made.status_code == 201, made.text
        second_space = made.json()["id"]
        second_owner = Caller(owner.client, owner.token, second_space, owner.user_id)
        second = await active_tool(second_owner, "second_tool")
        token = await scoped_token(owner, first["id"], second["id"])

        async with mcp_client(app, owner.space_id, token) as client:
            assert [tool.name for tool in (await client.list_tools()).tools] == ["first_tool"]
        async with mcp_client(app, second_space, token) as client:
            assert [tool.name for tool in (await client.list_tools()).tools] == ["second_tool"]
