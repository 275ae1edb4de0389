"""What the generator may know about a space, through a narrow port: names, never values.

`AuthoringContextSource` is the seam: this implementation reads the names in the secrets vault and
the names (and tool prefixes) of the space's MCP connections and databases.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Protocol

from app.persistence.repositories.authoring import AuthoringFactsRepository
from app.persistence.types import AsyncSession

# Enough recent automations to say which capabilities a space already uses.
USED_SAMPLE = 500


class AuthoringContextSource(Protocol):
    """Names of a space's resources that a definition may reference."""

    async def secret_names(self, space_id: uuid.UUID) -> list[str]: ...

    async def connection_names(self, space_id: uuid.UUID) -> list[str]: ...

    async def tool_prefixes(self, space_id: uuid.UUID) -> list[tuple[str, str, str]]:
        """(kind, name, tool prefix) of each MCP connection (`connection`) and database (`database`)."""
        ...

    async def used_definitions(self, space_id: uuid.UUID) -> list[dict[str, Any]]:
        """Definitions the space already has, to tell a capability it has never used."""
        ...


class DatabaseContextSource:
    """The context from this installation's own tables, on the request's session."""

    def __init__(self, session: AsyncSession) -> None:
        self.facts = AuthoringFactsRepository(session)

    async def secret_names(self, space_id: uuid.UUID) -> list[str]:
        return await self.facts.secret_names(space_id)

    async def connection_names(self, space_id: uuid.UUID) -> list[str]:
        return await self.facts.connection_names(space_id)

    async def tool_prefixes(self, space_id: uuid.UUID) -> list[tuple[str, str, str]]:
        return await self.facts.tool_prefixes(space_id)

    async def used_definitions(self, space_id: uuid.UUID) -> list[dict[str, Any]]:
        return await self.facts.definitions(space_id, USED_SAMPLE)


@dataclass(frozen=True)
class SpaceNames:
    """The names one space offers a definition: what the generator is told and what checks accept."""

    secrets: tuple[str, ...] = ()
    connections: tuple[str, ...] = ()
    prefixes: tuple[tuple[str, str, str], ...] = ()
    """(kind, name, tool prefix) of each MCP connection and database: what a capability id may start with."""


async def space_names(source: AuthoringContextSource, space_id: uuid.UUID) -> SpaceNames:
    return SpaceNames(
        tuple(await source.secret_names(space_id)),
        tuple(await source.connection_names(space_id)),
        tuple(await source.tool_prefixes(space_id)),
    )
