"""Queries over trigger rows: by automation, by webhook token digest, due schedules, event candidates."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select

from app.persistence.models import Automation, AutomationStatus, AutomationTrigger
from app.persistence.repositories.base import RepositoryBase


class TriggerRepository(RepositoryBase[AutomationTrigger]):
    model = AutomationTrigger

    async def for_automation(self, automation_id: uuid.UUID) -> Sequence[AutomationTrigger]:
        statement = select(AutomationTrigger).where(AutomationTrigger.automation_id == automation_id)
        return (await self.session.scalars(statement)).all()

    async def get_of_automation(
        self, automation_id: uuid.UUID, trigger_id: uuid.UUID
    ) -> AutomationTrigger | None:
        return await self.get_one_or_none(
            select(AutomationTrigger).where(
                AutomationTrigger.automation_id == automation_id, AutomationTrigger.id == trigger_id
            )
        )

    async def by_secret_hash(self, secret_hash: str) -> AutomationTrigger | None:
        return await self.get_one_or_none(
            select(AutomationTrigger).where(
                AutomationTrigger.secret_hash == secret_hash, AutomationTrigger.type == "webhook"
            )
        )

    async def due_schedules(self, now: datetime, limit: int) -> Sequence[AutomationTrigger]:
        """Due schedule triggers, locked; rows another tick holds are skipped, so each slot fires once."""
        statement = (
            select(AutomationTrigger)
            .where(
                AutomationTrigger.type == "schedule",
                AutomationTrigger.next_fire_at <= now,
                AutomationTrigger.enabled.is_(True),
            )
            .order_by(AutomationTrigger.next_fire_at)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        return (await self.session.scalars(statement)).all()

    async def event_candidates(
        self, space_id: uuid.UUID, event_types: list[str]
    ) -> Sequence[AutomationTrigger]:
        """Enabled event triggers of active automations in the space listening to one of these types."""
        # Trigger rows only: the automations (and their definitions) are loaded for the matches alone.
        statement = (
            select(AutomationTrigger)
            .join(Automation, Automation.id == AutomationTrigger.automation_id)
            .where(
                AutomationTrigger.space_id == space_id,
                AutomationTrigger.type == "event",
                AutomationTrigger.enabled.is_(True),
                AutomationTrigger.event_type.in_(event_types),
                Automation.status == AutomationStatus.active,
            )
        )
        return (await self.session.scalars(statement)).all()
