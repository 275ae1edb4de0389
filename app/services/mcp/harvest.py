"""Harvest: list a connection's tools and record them as the space's capabilities.

No transaction is open while the server is asked: one short unit of work reads the connection and its
credentials, the session with the server runs, and another applies the listing (or the error). A failing
server marks only its own connection `error`; its tools from the last good harvest stay as they were.

The same listing runs before a call when the connection's last one is older than
AUTOMATIONS_MCP_RELIST_AFTER_SECONDS (`app.services.mcp.drift`): drift is recorded here either way, and
each newly drifted or removed tool is counted in `automations_mcp_drift_total` once the change commits.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from app import metrics
from app.integrations.mcp.client import Endpoint, Listing, ToolListing, connect
from app.integrations.mcp.errors import McpAuthorizationRequired, McpError
from app.integrations.mcp.oauth import StoredOAuth
from app.jobs import enqueue
from app.persistence.models import McpConnection, McpTool
from app.persistence.repositories.mcp import McpConnectionRepository, McpToolRepository
from app.persistence.transaction import UnitOfWork
from app.persistence.types import AsyncSession
from app.registry import capabilities as native_capabilities
from app.services.mcp.endpoints import McpSettings, endpoint_for, read_oauth, seal_oauth
from app.services.mcp.tools import (
    capability_id_for,
    is_destructive,
    risk_hint,
    schema_hash,
    schema_problem,
)

HARVEST_TASK = "system.mcp_harvest"
SYSTEM_QUEUE = "system"
SWEEP_BATCH = 50


@dataclass(frozen=True)
class Drift:
    """What one applied listing changed: tools whose schemas or safety annotations now differ from what
    was harvested before (and from what an admin confirmed), and tools the server no longer lists."""

    changed: frozenset[str] = frozenset()
    removed: frozenset[str] = frozenset()

    def count(self, detected_by: str) -> None:
        """Count the events in `/metrics` (`detected_by`: harvest or call)."""
        metrics.mcp_drift(detected_by, "changed", len(self.changed))
        metrics.mcp_drift(detected_by, "removed", len(self.removed))


@dataclass(frozen=True)
class Outcome:
    """How a listing went (`ok`, `error`, `gone`) and the drift it recorded."""

    status: str
    drift: Drift = Drift()


def request_harvest(connection: McpConnection, now: datetime) -> None:
    """Mark the connection as waiting for a harvest and send one after the transaction commits."""
    connection.harvest_requested_at = now
    enqueue(HARVEST_TASK, str(connection.id), queue=SYSTEM_QUEUE)


class HarvestService:
    async def harvest(self, unit_of_work: UnitOfWork, connection_id: uuid.UUID, settings: McpSettings) -> str:
        """List the connection's tools and apply them; answers the outcome (`ok`, `error`, `gone`)."""
        outcome = await self.list_and_apply(unit_of_work, connection_id, settings, detected_by="harvest")
        return outcome.status

    async def list_and_apply(
        self, unit_of_work: UnitOfWork, connection_id: uuid.UUID, settings: McpSettings, *, detected_by: str
    ) -> Outcome:
        """One listing of the connection's tools, applied, its drift counted under `detected_by`."""
        endpoint: Endpoint | None = None
        oauth: StoredOAuth | None = None
        async with unit_of_work() as session:
            connection = await McpConnectionRepository(session).get_any(connection_id)
            if connection is None:
                return Outcome("gone")
            try:
                if connection.auth_type == "oauth":
                    oauth = read_oauth(connection, settings.keyring)
                endpoint = await endpoint_for(session, connection, settings, oauth)
            except McpError as exc:
                _record_error(connection, exc, datetime.now(UTC))
                return Outcome("error")
        try:
            async with connect(
                endpoint,
                allow=settings.allow,
                timeout_seconds=settings.timeout_seconds,
                resolver=settings.resolver,
            ) as mcp:
                listing = await mcp.list_tools(settings.max_tools)
        except McpError as exc:
            async with unit_of_work() as session:
                connection = await McpConnectionRepository(session).get_any(connection_id, lock=True)
                if connection is None:
                    return Outcome("gone")
                _keep_oauth(connection, oauth, settings)
                _record_error(connection, exc, datetime.now(UTC))
            return Outcome("error")
        finally:
            endpoint = None  # the credentials go with the session
        async with unit_of_work() as session:
            connection = await McpConnectionRepository(session).get_any(connection_id, lock=True)
            if connection is None:
                return Outcome("gone")
            _keep_oauth(connection, oauth, settings)
            drift = await _apply(session, connection, listing, settings.max_tools, datetime.now(UTC))
        # Counted once the change is committed: a rolled-back listing recorded nothing.
        drift.count(detected_by)
        return Outcome("ok", drift)

    async def sweep(self, session: AsyncSession, now: datetime, every: timedelta) -> int:
        """Ask for a harvest of every connection last harvested longer ago than `every` (beat's tick)."""
        due = await McpConnectionRepository(session).due_for_harvest(now - every, SWEEP_BATCH)
        for connection in due:
            request_harvest(connection, now)
        return len(due)


def _keep_oauth(connection: McpConnection, oauth: StoredOAuth | None, settings: McpSettings) -> None:
    # Tokens refreshed during the session are sealed again; a revoked refresh left them cleared.
    if oauth is not None and oauth.changed and connection.auth_type == "oauth":
        seal_oauth(connection, settings.keyring, oauth)


def _record_error(connection: McpConnection, exc: McpError, now: datetime) -> None:
    connection.harvest_status = "error"
    connection.harvest_error = f"{exc.code}: {exc.message}"
    connection.harvest_requested_at = None
    # A failed attempt counts as an attempt: the daily sweep does not hammer a server that is down.
    connection.last_harvested_at = now
    if isinstance(exc, McpAuthorizationRequired) or (
        connection.auth_type == "oauth" and exc.code.endswith("unauthorized")
    ):
        connection.needs_authorization = True


def _schema_or_empty(schema: Any) -> dict[str, Any]:
    return schema if isinstance(schema, dict) else {}


async def _apply(
    session: AsyncSession, connection: McpConnection, listing: Listing, cap: int, now: datetime
) -> Drift:
    tools = McpToolRepository(session)
    existing = {tool.name: tool for tool in await tools.of_connection(connection.id)}
    taken_elsewhere = await tools.capability_ids_elsewhere(connection.space_id, connection.id)
    native = {capability.id for capability in native_capabilities}

    planned: list[tuple[ToolListing, str | None, str | None]] = []
    by_id: dict[str, list[str]] = defaultdict(list)
    for listed in listing.tools:
        capability_id = capability_id_for(connection.tool_prefix, listed.name)
        reason = schema_problem(listed.input_schema, listed.output_schema)
        if capability_id is None:
            reason = reason or f"the name {listed.name!r} leaves no capability id after sanitising"
        elif capability_id in native or capability_id in taken_elsewhere:
            reason = reason or f"{capability_id} is already a capability of this space"
        planned.append((listed, capability_id, reason))
        if capability_id is not None:
            by_id[capability_id].append(listed.name)

    notices: list[str] = []
    if listing.truncated:
        notices.append(f"the server listed more than {cap} tools; only the first {cap} were kept")
    seen: set[str] = set()
    changed: set[str] = set()
    for listed, capability_id, reason in planned:
        if listed.name in seen:
            continue  # a server listing one name twice: the first description wins
        seen.add(listed.name)
        clashing = by_id.get(capability_id or "", [])
        if len(clashing) > 1:
            reason = f"the tool names {', '.join(repr(n) for n in clashing)} all become {capability_id}"
        if reason is not None:
            notices.append(f"{listed.name}: {reason}")
        if _upsert(session, connection, existing.get(listed.name), listed, capability_id, reason, now):
            changed.add(listed.name)

    removed: set[str] = set()
    for name, tool in existing.items():
        if name not in seen and not tool.removed:
            tool.removed = True
            tool.removed_at = now
            removed.add(name)

    connection.harvest_status = "ok"
    connection.harvest_error = None
    connection.harvest_notice = "; ".join(notices)[:4000] or None
    connection.harvest_requested_at = None
    connection.last_harvested_at = now
    connection.tool_count = len(seen)
    connection.tools_truncated = listing.truncated
    await session.flush()
    return Drift(frozenset(changed), frozenset(removed))


def _upsert(
    session: AsyncSession,
    connection: McpConnection,
    tool: McpTool | None,
    listed: ToolListing,
    capability_id: str | None,
    reason: str | None,
    now: datetime,
) -> bool:
    """Insert or update the tool's row; answers whether it newly drifted (a change not yet confirmed)."""
    digest = schema_hash(listed.input_schema, listed.output_schema, listed.annotations)
    values: dict[str, Any] = {
        "capability_id": capability_id or f"{connection.tool_prefix}.unnamed",
        "description": listed.description[:4000],
        "input_schema": _schema_or_empty(listed.input_schema),
        "output_schema": listed.output_schema if isinstance(listed.output_schema, dict) else None,
        "annotations": listed.annotations,
        "risk_hint": risk_hint(listed.annotations),
        "destructive": is_destructive(listed.annotations),
        "unusable_reason": reason,
    }
    if tool is None:
        session.add(
            McpTool(
                space_id=connection.space_id,
                connection_id=connection.id,
                name=listed.name[:200],
                schema_hash=digest,
                confirmed_hash=digest,
                drifted=False,
                removed=False,
                **values,
            )
        )
        return False
    for key, value in values.items():
        setattr(tool, key, value)
    if tool.removed:
        tool.removed = False
        tool.removed_at = None
    newly = digest != tool.schema_hash and digest != tool.confirmed_hash
    if digest != tool.schema_hash:
        tool.previous_hash = tool.schema_hash
        tool.schema_hash = digest
        tool.drifted_at = now
    tool.drifted = digest != tool.confirmed_hash
    return newly


harvest_service = HarvestService()
