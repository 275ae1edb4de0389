"""Natural-language authoring is told the names of the space's MCP connections (never more)."""

from __future__ import annotations

import uuid

from fastapi import FastAPI

from app.nl.context import DatabaseContextSource
from tests.mcp.conftest import connect
from tests.support.factories import Factory
from tests.support.mcp_server import McpTestServer


async def test_connection_names_join_the_authoring_context(
    app: FastAPI, factory: Factory, mcp_server: McpTestServer
) -> None:
    owner = await factory.owner()
    other = await factory.owner("Other")
    await connect(owner, mcp_server.url, name="Zendesk", tool_prefix="zd")
    await connect(owner, mcp_server.url, name="CRM")
    await connect(other, mcp_server.url, name="Elsewhere", tool_prefix="else")
    async with app.state.sessionmaker() as session:
        source = DatabaseContextSource(session)
        assert await source.connection_names(uuid.UUID(owner.space_id)) == ["CRM", "Zendesk"]
