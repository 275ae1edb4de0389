"""Drift found before a call: a connection whose tools were last listed too long ago is listed again.

Harvest compares a tool's schemas and safety annotations with what was harvested once a day; a server
can change a tool in between. Before a governed call of an MCP tool, when the connection's last listing
(a harvest, or this check in any process) is older than AUTOMATIONS_MCP_RELIST_AFTER_SECONDS, the tools
are listed again and applied as a harvest applies them, so drift is recorded in the same columns and
counted in the same metric (`detected_by="call"`). A tool that now differs from what an admin confirmed,
or that the server no longer lists, makes this very call `require_approval`.

Each process lists a connection at most once per interval, whatever the listing's outcome: calls made
while a listing is under way wait for it instead of starting another. A listing that fails leaves the
call to go on with what was harvested (the call meets the same server and its own error); the failure
is recorded on the connection as a harvest's would be.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
import uuid
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime, timedelta

from app.persistence.repositories.mcp import McpToolRepository
from app.persistence.types import AsyncSession, async_sessionmaker
from app.registry import Capability
from app.services.mcp.endpoints import McpSettings
from app.services.mcp.harvest import Drift, harvest_service

Clock = Callable[[], float]


class McpDriftCheck:
    """`CapabilityRecheck` for MCP tools; one per process (its memory of listings is per process)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        settings: McpSettings,
        relist_after_seconds: float,
        clock: Clock = time.monotonic,
    ) -> None:
        self.sessions = sessions
        self.settings = settings
        self.every = relist_after_seconds
        self.clock = clock
        self._listed: dict[uuid.UUID, float] = {}
        """Connection → when this process last listed it (monotonic seconds)."""
        self._running: dict[uuid.UUID, asyncio.Future[Drift | None]] = {}

    async def rechecked(self, space_id: str, capability: Capability) -> Capability:
        """The capability, marked `drifted` when a listing due now finds its tool changed or gone."""
        if capability.tier != "mcp" or self.every <= 0:
            return capability
        async with self.sessions() as session:
            found = await McpToolRepository(session).listed_at(uuid.UUID(space_id), capability.id)
        if found is None:
            return capability
        connection_id, name, harvested_at = found
        if not self._due(connection_id, harvested_at):
            return capability
        drift = await self._listing(connection_id)
        if drift is not None and (name in drift.changed or name in drift.removed):
            return dataclasses.replace(capability, drifted=True)
        return capability

    def _due(self, connection_id: uuid.UUID, harvested_at: datetime | None) -> bool:
        if connection_id in self._running:
            return True  # a listing under way: wait for its answer
        listed = self._listed.get(connection_id)
        if listed is not None and self.clock() - listed < self.every:
            return False
        age = timedelta(seconds=self.every)
        return harvested_at is None or datetime.now(UTC) - harvested_at >= age

    async def _listing(self, connection_id: uuid.UUID) -> Drift | None:
        running = self._running.get(connection_id)
        if running is not None:
            return await asyncio.shield(running)
        self._listed[connection_id] = self.clock()
        future: asyncio.Future[Drift | None] = asyncio.get_running_loop().create_future()
        self._running[connection_id] = future
        try:
            outcome = await harvest_service.list_and_apply(
                self._unit_of_work, connection_id, self.settings, detected_by="call"
            )
            drift = outcome.drift if outcome.status == "ok" else None
            future.set_result(drift)
            return drift
        except BaseException:
            # Whoever waited goes on with what was harvested; the error is this caller's alone.
            future.set_result(None)
            raise
        finally:
            del self._running[connection_id]
            self._forget_old()

    def _unit_of_work(self) -> AbstractAsyncContextManager[AsyncSession]:
        return self.sessions.begin()

    def _forget_old(self) -> None:
        # Connections not listed for a whole interval need no memory: the dict stays as small as the
        # set of connections this process called recently.
        horizon = self.clock() - self.every
        for key in [key for key, at in self._listed.items() if at < horizon]:
            del self._listed[key]
