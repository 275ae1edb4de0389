"""`publish`: the only way anything emits a domain event (a row, committed with the change that caused it)."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.persistence.base import utcnow
from app.persistence.models import DomainEvent

EVENT_RETENTION = timedelta(days=7)


class EventService:
    async def publish(
        self,
        session: AsyncSession,
        space_id: uuid.UUID,
        event_type: str,
        payload: dict[str, Any],
        source_id: str | None,
        *,
        chain_depth: int = 0,
    ) -> DomainEvent:
        """Record an event in the caller's transaction; it is matched to triggers once committed."""
        now = utcnow()
        event = DomainEvent(
            id=uuid.uuid4(),
            space_id=space_id,
            event_type=event_type,
            payload=payload,
            source_id=source_id,
            chain_depth=chain_depth,
            consumed_by=[],
            created_at=now,
            expires_at=now + EVENT_RETENTION,
        )
        session.add(event)
        await session.flush()
        return event


event_service = EventService()
