"""Queries behind the space's MCP server: exposed automations by tool name, and what a scoped token names."""

from __future__ import annotations

import uuid
from collections.abc import Collection

from sqlalchemy import func, select

from app.persistence.models import ActionInvocation, Automation, AutomationStatus, Membership
from app.persistence.repositories.base import RepositoryBase


class McpExposureRepository(RepositoryBase[Automation]):
    model = Automation

    async def tool_name_holder(
        self, space_id: uuid.UUID, tool_name: str, exclude: uuid.UUID | None
    ) -> Automation | None:
        """The other automation of the space exposed under `tool_name`, if any.

        Takes a transaction-scoped advisory lock on (space, name) first, so two saves claiming one name at
        once take turns: the second sees the first's row instead of failing on the unique index."""
        await self.session.execute(
            select(func.pg_advisory_xact_lock(func.hashtextextended(f"mcp-tool:{space_id}:{tool_name}", 0)))
        )
        statement = select(Automation).where(
            Automation.space_id == space_id, Automation.mcp_tool_name == tool_name
        )
        if exclude is not None:
            statement = statement.where(Automation.id != exclude)
        return await self.get_one_or_none(statement)

    async def exposed(self, space_id: uuid.UUID, automation_ids: Collection[uuid.UUID]) -> list[Automation]:
        """The space's active, exposed automations among `automation_ids`, by tool name."""
        if not automation_ids:
            return []
        return await self.get_all(
            select(Automation)
            .where(
                Automation.space_id == space_id,
                Automation.id.in_(list(automation_ids)),
                Automation.mcp_tool_name.is_not(None),
                Automation.status == AutomationStatus.active,
            )
            .order_by(Automation.mcp_tool_name)
        )

    async def by_tool_name(
        self, space_id: uuid.UUID, tool_name: str, automation_ids: Collection[uuid.UUID]
    ) -> Automation | None:
        """The automation exposed as `tool_name` in the space if `automation_ids` has it (any status)."""
        if not automation_ids:
            return None
        return await self.get_one_or_none(
            select(Automation).where(
                Automation.space_id == space_id,
                Automation.mcp_tool_name == tool_name,
                Automation.id.in_(list(automation_ids)),
            )
        )

    async def visible_to(self, user_id: uuid.UUID, automation_ids: Collection[uuid.UUID]) -> set[uuid.UUID]:
        """Those of `automation_ids` that live in a space the user is a member of."""
        if not automation_ids:
            return set()
        rows = await self.session.scalars(
            select(Automation.id)
            .join(Membership, Membership.space_id == Automation.space_id)
            .where(Membership.user_id == user_id, Automation.id.in_(list(automation_ids)))
        )
        return set(rows.all())

    async def pending_approval(self, run_id: uuid.UUID) -> uuid.UUID | None:
        """The id of the run's call that waits for a decision (its approval), if any."""
        rows = await self.session.scalars(
            select(ActionInvocation.id)
            .where(ActionInvocation.run_id == run_id, ActionInvocation.status == "pending")
            .order_by(ActionInvocation.created_at)
            .limit(1)
        )
        return rows.first()
