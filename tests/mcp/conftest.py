"""MCP tests: connections made through the API, harvested by calling the service as the task does."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from fastapi import FastAPI

from app.persistence.models import Role
from app.persistence.transaction import transaction
from app.services.identity.access import Caller as AccessCaller
from app.services.identity.access import SpaceAccess
from app.services.mcp.connections import ConnectionSpec, mcp_connection_service
from app.services.mcp.endpoints import McpSettings
from app.services.mcp.harvest import harvest_service
from tests.support.factories import Caller

Harvest = Callable[..., Awaitable[str]]


@pytest.fixture
def harvest(app: FastAPI) -> Harvest:
    """Run one harvest of a connection in this process, exactly as the `system.mcp_harvest` task does."""

    async def run(connection_id: str, settings: McpSettings | None = None) -> str:
        def unit_of_work():  # type: ignore[no-untyped-def]
            return transaction(app.state.sessionmaker, app.state.send_job)

        return await harvest_service.harvest(
            unit_of_work, uuid.UUID(connection_id), settings or app.state.runtime.mcp
        )

    return run


def access_of(caller: Caller) -> SpaceAccess:
    """The caller as the services see an owner of their space."""
    who = AccessCaller(uuid.UUID(caller.user_id), "owner@example.test", uuid.uuid4())
    return SpaceAccess(who, uuid.UUID(caller.space_id), Role.owner)


async def create_with(app: FastAPI, caller: Caller, settings: McpSettings, spec: ConnectionSpec) -> str:
    """Create a connection through the service with other settings (a test resolver); answers its id."""
    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        created = await mcp_connection_service.create(session, access_of(caller), settings, spec)
        return str(created.id)


async def connect(caller: Caller, url: str, **body: Any) -> dict[str, Any]:
    """Create a connection through the API and answer its JSON (asserting 201)."""
    payload = {
        "name": body.pop("name", "CRM"),
        "url": url,
        "tool_prefix": body.pop("tool_prefix", "crm"),
        **body,
    }
    response = await caller.request("POST", caller.space_path("/mcp/connections"), json=payload)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


async def tools(caller: Caller, connection_id: str) -> dict[str, dict[str, Any]]:
    response = await caller.request("GET", caller.space_path(f"/mcp/connections/{connection_id}/tools"))
    assert response.status_code == 200, response.text
    return {tool["name"]: tool for tool in response.json()}


async def connection(caller: Caller, connection_id: str) -> dict[str, Any]:
    response = await caller.request("GET", caller.space_path(f"/mcp/connections/{connection_id}"))
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data
