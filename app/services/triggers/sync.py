"""Trigger rows kept in step with the definition; webhook tokens; schedule positions.

A webhook token is made when its trigger first appears, shown once, stored as a digest, and can be
rotated or revoked. A schedule has a `next_fire_at` only while its automation is active and it is
enabled: pausing stops it, activating starts it from now (no catch-up for time spent paused).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from app.definitions.automation import AutomationDefinition, EventTrigger, ScheduleTrigger, Trigger
from app.engine.schedule import first_fire_at
from app.errors import Conflict, NotFound
from app.persistence.base import utcnow
from app.persistence.models import Automation, AutomationStatus, AutomationTrigger
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.repositories.triggers import TriggerRepository
from app.persistence.types import AsyncSession
from app.security.tokens import display_prefix, generate_token, hash_token
from app.services.identity.access import Permissions, SpaceAccess

WEBHOOK_TOKEN_PREFIX = "awh_"  # noqa: S105 (a visible prefix, not a secret)


@dataclass(frozen=True)
class NewToken:
    trigger_id: uuid.UUID
    token: str


def _slots(definition: AutomationDefinition) -> list[tuple[tuple[str, int], Trigger]]:
    counts: dict[str, int] = {}
    slots: list[tuple[tuple[str, int], Trigger]] = []
    for trigger in definition.triggers:
        position = counts.get(trigger.type, 0)
        counts[trigger.type] = position + 1
        slots.append(((trigger.type, position), trigger))
    return slots


def _issue_token(row: AutomationTrigger, now: datetime) -> str:
    token = generate_token(WEBHOOK_TOKEN_PREFIX)
    row.secret_hash, row.token_prefix, row.token_rotated_at = hash_token(token), display_prefix(token), now
    return token


def schedule_next(row: AutomationTrigger, automation: Automation, now: datetime) -> datetime | None:
    """Where a schedule stands: its next fire from `now`, or None while it must not fire."""
    if row.type != "schedule" or not row.enabled or automation.status is not AutomationStatus.active:
        return None
    return first_fire_at(row.config["cron"], row.config.get("timezone", "UTC"), now)


class TriggerService:
    async def sync(
        self, session: AsyncSession, automation: Automation, definition: AutomationDefinition
    ) -> list[NewToken]:
        """Make the rows match the definition; answer the tokens of webhook triggers that are new."""
        repository = TriggerRepository(session)
        existing = {(row.type, row.position): row for row in await repository.for_automation(automation.id)}
        now = utcnow()
        tokens: list[NewToken] = []
        for slot, trigger in _slots(definition):
            row = existing.pop(slot, None)
            config = trigger.config.model_dump(mode="json")
            if row is None:
                row = AutomationTrigger(
                    id=uuid.uuid4(),
                    automation_id=automation.id,
                    space_id=automation.space_id,
                    type=slot[0],
                    position=slot[1],
                )
                session.add(row)
                if trigger.type == "webhook":
                    tokens.append(NewToken(row.id, _issue_token(row, now)))
            schedule_changed = row.config != config or row.enabled != trigger.enabled
            row.config, row.enabled, row.name = config, trigger.enabled, trigger.name
            row.event_type = trigger.config.event_type if isinstance(trigger, EventTrigger) else None
            if isinstance(trigger, ScheduleTrigger) and (schedule_changed or row.next_fire_at is None):
                row.next_fire_at = schedule_next(row, automation, now)
            row.updated_at = now
        for stale in existing.values():
            await session.delete(stale)
        await session.flush()
        return tokens

    async def status_changed(self, session: AsyncSession, automation: Automation) -> None:
        """Start schedules of an automation that became active; stop them otherwise."""
        now = utcnow()
        for row in await TriggerRepository(session).for_automation(automation.id):
            if row.type == "schedule":
                row.next_fire_at = schedule_next(row, automation, now)
        await session.flush()

    async def rotate(
        self, session: AsyncSession, access: SpaceAccess, automation_id: uuid.UUID, trigger_id: uuid.UUID
    ) -> tuple[AutomationTrigger, str]:
        """A new token for a webhook trigger; the previous one stops working at once."""
        access.require(Permissions.write_automations)
        row = await self._webhook(session, access, automation_id, trigger_id)
        token = _issue_token(row, utcnow())
        await session.flush()
        return row, token

    async def revoke(
        self, session: AsyncSession, access: SpaceAccess, automation_id: uuid.UUID, trigger_id: uuid.UUID
    ) -> AutomationTrigger:
        """Remove a webhook trigger's token: every fire answers 401 until it is rotated."""
        access.require(Permissions.write_automations)
        row = await self._webhook(session, access, automation_id, trigger_id)
        row.secret_hash, row.token_prefix, row.token_rotated_at = None, None, utcnow()
        await session.flush()
        return row

    async def _webhook(
        self, session: AsyncSession, access: SpaceAccess, automation_id: uuid.UUID, trigger_id: uuid.UUID
    ) -> AutomationTrigger:
        if await AutomationRepository(session).get_in_space(access.space_id, automation_id) is None:
            raise NotFound("Automation not found.", code="automation_not_found")
        row = await TriggerRepository(session).get_of_automation(automation_id, trigger_id)
        if row is None:
            raise NotFound("Trigger not found.", code="trigger_not_found")
        if row.type != "webhook":
            raise Conflict("Only webhook triggers have tokens.", code="not_a_webhook_trigger")
        return row


trigger_service = TriggerService()
