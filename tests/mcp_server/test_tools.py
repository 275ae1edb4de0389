"""An agent lists and calls exposed automations through the space's MCP server, with the SDK's client."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx2
import pytest
from fastapi import FastAPI
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.mcp_server.conftest import GREETER_INPUTS, active_tool, mcp_client, runs_of, scoped_token
from tests.support.factories import Factory
from tests.support.processes import ROOT, ServiceProcess


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


def _documented_client_config() -> dict[str, Any]:
    """The client configuration docs/mcp.md shows (the JSON block with `mcpServers`)."""
    text = (ROOT / "docs" / "mcp.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.DOTALL)
    [config] = [json.loads(block) for block in blocks if '"mcpServers"' in block]
    server: dict[str, Any] = config["mcpServers"]["automations"]
    return server


async def test_the_documented_client_configuration_reaches_the_server(app: FastAPI, factory: Factory) -> None:
    owner = await factory.owner()
    greeter = await active_tool(owner, "greet")
    token = await scoped_token(owner, greeter["id"])
    server = _documented_client_config()
    assert server["type"] == "http"
    url = server["url"].replace("https://automations.example.com", "http://testserver")
    url = url.replace("SPACE_ID", owner.space_id)
    headers = {name: value.replace("AGENT_TOKEN", token) for name, value in server["headers"].items()}

    http = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), headers=headers, timeout=60)
    async with http, Client(streamable_http_client(url, http_client=http), cache=None) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == ["greet"]
