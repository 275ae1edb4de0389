"""An outside agent's view of a space's MCP server: exposed automations, scoped tokens, the SDK's client."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx2
from fastapi import FastAPI
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from tests.support.factories import Caller

GREETER_INPUTS: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string", "minLength": 1}},
    "required": ["name"],
    "additionalProperties": False,
}


def exposed(tool_name: str, **changes: Any) -> dict[str, Any]:
    """A definition exposed as the MCP tool `tool_name`: it greets its `name` input."""
    document: dict[str, Any] = {
        "schema_version": "1.0",
        "name": f"Greeter {tool_name}",
        "description": "Greets someone by name.",
        "inputs": {"schema": GREETER_INPUTS},
        "plan": [
            {
                "step_id": "greet",
                "action": "transform_data",
                "config": {"output": {"greeting": "Hello, {{ inputs.name }}!"}},
                "output_as": "greet",
            }
        ],
        "expose": {"mcp": {"tool_name": tool_name, "description": f"Say hello ({tool_name})."}},
    }
    document.update(changes)
    return document


async def active_tool(caller: Caller, tool_name: str, **changes: Any) -> dict[str, Any]:
    """An active automation exposed as `tool_name`, as the API answered it."""
    automation = await caller.create_automation(exposed(tool_name, **changes))
    response = await caller.request("POST", caller.space_path(f"/automations/{automation['id']}/activate"))
    assert response.status_code == 200, response.text
    return dict(response.json())


async def scoped_token(caller: Caller, *automation_ids: str, name: str = "desktop agent") -> str:
    response = await caller.request(
        "POST",
        "/api/v1/tokens",
        json={"name": name, "scopes": {"mcp": {"automations": list(automation_ids)}}},
    )
    assert response.status_code == 201, response.text
    token: str = response.json()["token"]
    return token


async def runs_of(caller: Caller, automation_id: str) -> list[dict[str, Any]]:
    response = await caller.request(
        "GET", caller.space_path("/runs"), params={"automation_id": automation_id}
    )
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items


@contextlib.asynccontextmanager
async def mcp_client(app: FastAPI, space_id: str, token: str) -> AsyncIterator[Client]:
    """The `mcp` package's client on the space's server, in process (the app behind an ASGI transport)."""
    http = httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app),
        base_url="http://testserver",
        headers={"Authorization": f"Bearer {token}"},
        timeout=60,
    )
    async with http:
        transport = streamable_http_client(
            f"http://testserver/api/v1/spaces/{space_id}/mcp", http_client=http
        )
        async with Client(transport, cache=None) as client:
            yield client
