"""Queries over automations and their versions, always scoped to one space."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Select, Text, cast, func, select
from sqlalchemy.orm import selectinload

from app.persistence.models import Automation, AutomationStatus, AutomationVersion, Run, Space, User
from app.persistence.repositories.base import RepositoryBase


class AutomationRepository(RepositoryBase[Automation]):
    model = Automation

    async def action_modes(self, automation_id: uuid.UUID) -> tuple[dict[str, str], dict[str, str]]:
        """(the automation's overrides, its space's defaults) in one query; empty when it is gone."""
        statement = (
            select(Automation.action_modes, Space.action_modes)
            .join(Space, Space.id == Automation.space_id)
            .where(Automation.id == automation_id)
        )
        row = (await self.session.execute(statement)).one_or_none()
        return (dict(row[0] or {}), dict(row[1] or {})) if row is not None else ({}, {})

    def space_statement(self, space_id: uuid.UUID) -> Select[Automation]:
        """Every query starts here, so none can forget the space (triggers come along)."""
        return (
            select(Automation)
            .options(selectinload(Automation.triggers))
            .where(Automation.space_id == space_id)
        )

    def listing_statement(
        self, space_id: uuid.UUID, statuses: list[AutomationStatus] | None
    ) -> Select[Automation]:
        statement = self.space_statement(space_id)
        if statuses:
            statement = statement.where(Automation.status.in_(statuses))
        return statement

    async def calling_definitions(self, space_id: uuid.UUID, but: uuid.UUID | None) -> dict[str, Any]:
        """The current definitions (id → document) of the space's automations that name the
        `call_automation` action, leaving out `but`: the edges of the space's call graph (an automation
        that calls nothing has none, so it is not read)."""
        statement = select(Automation.id, Automation.definition).where(
            Automation.space_id == space_id,
            cast(Automation.definition, Text).contains('"call_automation"'),
        )
        if but is not None:
            statement = statement.where(Automation.id != but)
        return {str(row[0]): row[1] for row in (await self.session.execute(statement)).all()}

    async def get_by_id(self, automation_id: uuid.UUID) -> Automation | None:
        """For callers authenticated by something other than a space member (a webhook token)."""
        return await self.get_one_or_none(select(Automation).where(Automation.id == automation_id))

    async def lock(self, automation_id: uuid.UUID) -> None:
        """Hold the automation's row until the transaction ends: fires of one automation take turns."""
        await self.session.execute(
            select(Automation.id).where(Automation.id == automation_id).with_for_update()
        )

    async def get_many(self, automation_ids: set[uuid.UUID]) -> list[Automation]:
        if not automation_ids:
            return []
        return await self.get_all(select(Automation).where(Automation.id.in_(automation_ids)))

    async def names(self, automation_ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
        """The name of each of these automations, without loading their definitions."""
        if not automation_ids:
            return {}
        rows = await self.session.execute(
            select(Automation.id, Automation.name).where(Automation.id.in_(automation_ids))
        )
        return {row.id: row.name for row in rows}

    async def get_in_space(
        self, space_id: uuid.UUID, automation_id: uuid.UUID, *, for_update: bool = False
    ) -> Automation | None:
        statement = self.space_statement(space_id).where(Automation.id == automation_id)
        if for_update:
            statement = statement.with_for_update()
        return await self.get_one_or_none(statement)

    async def owners_and_last_runs(
        self, automation_ids: list[uuid.UUID]
    ) -> dict[uuid.UUID, tuple[uuid.UUID | None, str | None, datetime | None]]:
        """Per automation: who created it (id, email) and when it last ran, in one query."""
        if not automation_ids:
            return {}
        last_run = (
            select(func.max(Run.created_at)).where(Run.automation_id == Automation.id).scalar_subquery()
        )
        statement = (
            select(Automation.id, Automation.created_by, User.email, last_run)
            .outerjoin(User, User.id == Automation.created_by)
            .where(Automation.id.in_(automation_ids))
        )
        rows = (await self.session.execute(statement)).all()
        return {row[0]: (row[1], row[2], row[3]) for row in rows}


class AutomationVersionRepository(RepositoryBase[AutomationVersion]):
    model = AutomationVersion

    def versions_statement(self, automation_id: uuid.UUID) -> Select[AutomationVersion]:
        return select(AutomationVersion).where(AutomationVersion.automation_id == automation_id)

    async def get_version(self, automation_id: uuid.UUID, version: int) -> AutomationVersion | None:
        return await self.session.get(AutomationVersion, (automation_id, version))
