"""Queries over domain events."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Select, delete, select

from app.persistence.models import DomainEvent
from app.persistence.repositories.base import RepositoryBase


class EventRepository(RepositoryBase[DomainEvent]):
    model = DomainEvent

    async def lock_undispatched(self, event_id: uuid.UUID) -> DomainEvent | None:
        """The event, locked, if nobody dispatched it yet (a concurrent dispatcher waits, then skips)."""
        return await self.get_one_or_none(
            select(DomainEvent)
            .where(DomainEvent.id == event_id, DomainEvent.dispatched_at.is_(None))
            .with_for_update()
        )

    async def undispatched_before(self, cutoff: datetime, limit: int) -> Sequence[DomainEvent]:
        statement = (
            select(DomainEvent)
            .where(DomainEvent.dispatched_at.is_(None), DomainEvent.created_at < cutoff)
            .order_by(DomainEvent.created_at)
            .limit(limit)
        )
        return (await self.session.scalars(statement)).all()

    async def delete_expired(self, now: datetime) -> int:
        result = await self.session.execute(delete(DomainEvent).where(DomainEvent.expires_at < now))
        return int(getattr(result, "rowcount", 0) or 0)

    def space_statement(self, space_id: uuid.UUID) -> Select[DomainEvent]:
        return select(DomainEvent).where(DomainEvent.space_id == space_id)
