"""An agent lists and calls exposed automations through the space's MCP server, with the SDK's client."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from mcp.shared.exceptions import MCPError

from tests.mcp_server.conftest import GREETER_INPUTS, active_tool, mcp_client, runs_of, scoped_token
from tests.support.factories import Factory
from tests.support.processes import ServiceProcess


async def test_an_agent_lists_its_tools_and_gets_a_finished_runs_output(
    app: FastAPI, factory: Factory, stack: tuple[ServiceProcess, ServiceProcess]
) -> None:
    owner = await factory.owner()
    greeter = await active_tool(owner, "greet")
    token = await scoped_token(owner, greeter["id"])

    async with mcp_client(app, owner.space_id, token) as client:
        listed = await client.list_tools()
        assert [tool.name for tool in listed.tools] == ["greet"]
        assert listed.tools[0].description == "Say hello (greet)."
        assert listed.tools[0].input_schema == GREETER_INPUTS
        result = await client.call_tool("greet", {"name": "Ada"})

    assert not result.is_error, result
    assert result.structured_content is not None
    assert result.structured_content["status"] == "succeeded"
    assert result.structured_content["output"] == {"greet": {"greeting": "Hello, Ada!"}}
    [run] = await runs_of(owner, greeter["id"])
    assert run["id"] == result.structured_content["run_id"]
    assert run["trigger_type"] == "mcp"
    assert run["ran_as"]["user_id"] == owner.user_id


async def test_invalid_arguments_answer_a_tool_error_and_start_nothing(
    app: FastAPI, factory: Factory
) -> None:
    owner = await factory.owner()
    greeter = await active_tool(owner, "greet")
    token = await scoped_token(owner, greeter["id"])

    async with mcp_client(app, owner.space_id, token) as client:
        missing = await client.call_tool("greet", {})
        wrong = await client.call_tool("greet", {"name": 42, "extra": True})

    for result in (missing, wrong):
        assert result.is_error
        assert result.structured_content is not None
        assert result.structured_content["error"]["code"] == "invalid_inputs"
    assert "'name' is a required property" in missing.content[0].text  # type: ignore[union-attr]
    assert await runs_of(owner, greeter["id"]) == []


async def test_an_unknown_tool_is_a_protocol_error_and_starts_nothing(app: FastAPI, factory: Factory) -> None:
    owner = await factory.owner()
    greeter = await active_tool(owner, "greet")
    token = await scoped_token(owner, greeter["id"])

    async with mcp_client(app, owner.space_id, token) as client:
        with pytest.raises(MCPError, match="No tool named 'nope'"):
            await client.call_tool("nope", {"name": "Ada"})
    assert await runs_of(owner, greeter["id"]) == []
