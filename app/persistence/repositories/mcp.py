"""Queries over MCP connections and their tools: always within one space, except the beat's sweeps."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Select, bindparam, or_, select

from app.persistence.models import McpConnection, McpTool
from app.persistence.repositories.base import RepositoryBase


class McpConnectionRepository(RepositoryBase[McpConnection]):
    model = McpConnection

    def space_statement(self, space_id: uuid.UUID) -> Select[McpConnection]:
        """Connections of one space: the one place a connection query is scoped."""
        return select(McpConnection).where(McpConnection.space_id == space_id)

    async def get(self, space_id: uuid.UUID, connection_id: uuid.UUID) -> McpConnection | None:
        return await self.get_one_or_none(
            self.space_statement(space_id).where(McpConnection.id == connection_id)
        )

    async def get_any(self, connection_id: uuid.UUID, *, lock: bool = False) -> McpConnection | None:
        """A connection by id alone (a task names it); `lock` holds it until the transaction ends."""
        statement = select(McpConnection).where(McpConnection.id == connection_id)
        return await self.get_one_or_none(statement.with_for_update() if lock else statement)

    async def by_state_hash(self, state_hash: str) -> McpConnection | None:
        """The connection whose authorization in progress has this state (the OAuth callback's key)."""
        statement = select(McpConnection).where(McpConnection.oauth_state_hash == state_hash)
        return await self.get_one_or_none(statement.with_for_update())

    async def named(self, space_id: uuid.UUID, name: str) -> McpConnection | None:
        return await self.get_one_or_none(self.space_statement(space_id).where(McpConnection.name == name))

    async def with_prefix(self, space_id: uuid.UUID, prefix: str) -> McpConnection | None:
        return await self.get_one_or_none(
            self.space_statement(space_id).where(McpConnection.tool_prefix == prefix)
        )

    async def with_oauth_state(self) -> Sequence[McpConnection]:
        """Every connection holding sealed OAuth state, locked (key rotation)."""
        statement = (
            select(McpConnection)
            .where(McpConnection.oauth_ciphertext.is_not(None))
            .order_by(McpConnection.id)
            .with_for_update()
        )
        return await self.get_all(statement)

    async def names(self, space_id: uuid.UUID) -> list[str]:
        statement = select(McpConnection.name).where(McpConnection.space_id == space_id)
        return sorted((await self.session.scalars(statement.order_by(McpConnection.name))).all())

    async def due_for_harvest(self, harvested_before: datetime, limit: int) -> Sequence[McpConnection]:
        """Connections last harvested before the time (or never), not already waiting for one, locked."""
        statement = (
            select(McpConnection)
            .where(
                or_(
                    McpConnection.last_harvested_at.is_(None),
                    McpConnection.last_harvested_at < harvested_before,
                ),
                or_(
                    McpConnection.harvest_requested_at.is_(None),
                    McpConnection.harvest_requested_at < harvested_before,
                ),
            )
            .order_by(McpConnection.last_harvested_at.nulls_first())
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        return await self.get_all(statement)


# The tools a space can call, with their connection's URL: read when a definition of the space is
# checked, and for each call of a tool. Built once, with the values bound at execution: building a
# statement costs SQLAlchemy more CPU than running it.
_CALLABLE = (
    select(McpTool, McpConnection.url)
    .join(McpConnection, McpConnection.id == McpTool.connection_id)
    .where(
        McpTool.space_id == bindparam("space_id"),
        McpTool.removed.is_(False),
        McpTool.unusable_reason.is_(None),
    )
)
_CALLABLE_IN_SPACE = _CALLABLE.order_by(McpTool.capability_id)
_CALLABLE_BY_CAPABILITY = _CALLABLE.where(McpTool.capability_id == bindparam("capability_id"))


class McpToolRepository(RepositoryBase[McpTool]):
    model = McpTool

    async def of_connection(self, connection_id: uuid.UUID) -> list[McpTool]:
        statement = select(McpTool).where(McpTool.connection_id == connection_id).order_by(McpTool.name)
        return await self.get_all(statement)

    async def named(self, connection_id: uuid.UUID, name: str) -> McpTool | None:
        return await self.get_one_or_none(
            select(McpTool).where(McpTool.connection_id == connection_id, McpTool.name == name)
        )

    async def callable_in_space(self, space_id: uuid.UUID) -> list[tuple[McpTool, str | None]]:
        """The tools a space can call (harvested, still listed, usable), each with its connection's URL
        (None for a stdio server): where the tool's arguments are sent."""
        rows = (await self.session.execute(_CALLABLE_IN_SPACE, {"space_id": space_id})).all()
        return [(tool, url) for tool, url in rows]

    async def callable_by_capability(
        self, space_id: uuid.UUID, capability_id: str
    ) -> tuple[McpTool, str | None] | None:
        parameters = {"space_id": space_id, "capability_id": capability_id}
        row = (await self.session.execute(_CALLABLE_BY_CAPABILITY, parameters)).first()
        if row is None:
            return None
        tool, url = row
        return tool, url

    async def listed_at(
        self, space_id: uuid.UUID, capability_id: str
    ) -> tuple[uuid.UUID, str, datetime | None] | None:
        """For a callable tool: its connection, its name on the server, and when that connection's tools
        were last listed (the drift check's question)."""
        statement = (
            select(McpTool.connection_id, McpTool.name, McpConnection.last_harvested_at)
            .join(McpConnection, McpConnection.id == McpTool.connection_id)
            .where(
                McpTool.space_id == space_id,
                McpTool.capability_id == capability_id,
                McpTool.removed.is_(False),
                McpTool.unusable_reason.is_(None),
            )
        )
        row = (await self.session.execute(statement)).first()
        return None if row is None else (row[0], row[1], row[2])

    async def capability_ids_elsewhere(self, space_id: uuid.UUID, connection_id: uuid.UUID) -> set[str]:
        """Capability ids other connections of the space already give out (a clash check)."""
        statement = select(McpTool.capability_id).where(
            McpTool.space_id == space_id,
            McpTool.connection_id != connection_id,
            McpTool.removed.is_(False),
            McpTool.unusable_reason.is_(None),
        )
        return set((await self.session.scalars(statement)).all())
