"""What drafting may know about a space: names only (secrets, steps used so far), never values."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.persistence.models import Automation, McpConnection, Secret, SpaceDatabase


class AuthoringFactsRepository:
    """Read-only queries for the authoring context, each scoped to one space."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def secret_names(self, space_id: uuid.UUID) -> list[str]:
        """Names of the space's stored secrets, sorted (the values are never read here)."""
        statement = select(Secret.name).where(Secret.space_id == space_id).order_by(Secret.name)
        return list((await self.session.scalars(statement)).all())

    async def connection_names(self, space_id: uuid.UUID) -> list[str]:
        """Names of the space's MCP connections, sorted."""
        statement = select(McpConnection.name).where(McpConnection.space_id == space_id)
        return list((await self.session.scalars(statement.order_by(McpConnection.name))).all())

    async def tool_prefixes(self, space_id: uuid.UUID) -> list[tuple[str, str, str]]:
        """(kind, name, tool prefix) of the space's MCP connections and databases, sorted by name."""
        connections = select(McpConnection.name, McpConnection.tool_prefix).where(
            McpConnection.space_id == space_id
        )
        databases = select(SpaceDatabase.name, SpaceDatabase.tool_prefix).where(
            SpaceDatabase.space_id == space_id
        )
        found = [
            ("connection", name, prefix) for name, prefix in (await self.session.execute(connections)).all()
        ]
        found += [
            ("database", name, prefix) for name, prefix in (await self.session.execute(databases)).all()
        ]
        return sorted(found, key=lambda row: (row[0], row[1]))

    async def definitions(self, space_id: uuid.UUID, limit: int) -> list[dict[str, Any]]:
        """The current definitions of the space's automations (archived ones too: they were used)."""
        statement = (
            select(Automation.definition)
            .where(Automation.space_id == space_id)
            .order_by(Automation.created_at.desc())
            .limit(limit)
        )
        return list((await self.session.scalars(statement)).all())
