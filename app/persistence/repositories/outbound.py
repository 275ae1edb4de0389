"""Queries over webhook endpoints, their deliveries (the outbox) and attempts."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, Select, and_, func, or_, select, update
from sqlalchemy.orm import InstrumentedAttribute

from app.persistence.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from app.persistence.repositories.base import RepositoryBase


def listening(
    space_id: uuid.UUID | ColumnElement[uuid.UUID] | InstrumentedAttribute[uuid.UUID], event_type: str
) -> ColumnElement[bool]:
    """Enabled endpoints subscribed to the event type (exactly or by `prefix.*`): the space's own and
    the operator-wide one. `space_id` may be a column, to ask inside a statement about another row."""
    family = event_type.rpartition(".")[0] + ".*"
    return and_(
        or_(WebhookEndpoint.space_id == space_id, WebhookEndpoint.space_id.is_(None)),
        WebhookEndpoint.enabled.is_(True),
        or_(WebhookEndpoint.events.contains([event_type]), WebhookEndpoint.events.contains([family])),
    )


class WebhookEndpointRepository(RepositoryBase[WebhookEndpoint]):
    model = WebhookEndpoint

    def space_statement(self, space_id: uuid.UUID) -> Select[WebhookEndpoint]:
        return select(WebhookEndpoint).where(WebhookEndpoint.space_id == space_id)

    async def get_in_space(
        self, space_id: uuid.UUID, endpoint_id: uuid.UUID, *, for_update: bool = False
    ) -> WebhookEndpoint | None:
        statement = self.space_statement(space_id).where(WebhookEndpoint.id == endpoint_id)
        return await self.get_one_or_none(statement.with_for_update() if for_update else statement)

    async def count_in_space(self, space_id: uuid.UUID) -> int:
        statement = select(func.count()).where(WebhookEndpoint.space_id == space_id)
        return int((await self.session.execute(statement)).scalar_one())

    async def listening(self, space_id: uuid.UUID, event_type: str) -> list[WebhookEndpoint]:
        """Enabled endpoints subscribed to the event type (exactly or by `prefix.*`): the space's own and
        the operator-wide one."""
        return await self.get_all(select(WebhookEndpoint).where(listening(space_id, event_type)))

    async def delete(self, endpoint: WebhookEndpoint) -> None:
        await self.session.delete(endpoint)
        await self.session.flush()


class WebhookDeliveryRepository(RepositoryBase[WebhookDelivery]):
    model = WebhookDelivery

    def listing_statement(
        self,
        space_id: uuid.UUID,
        *,
        endpoint_id: uuid.UUID | None = None,
        run_id: uuid.UUID | None = None,
        status: str | None = None,
    ) -> Select[WebhookDelivery]:
        # Deliveries to the operator-wide endpoint are the operator's business, not the space's.
        own = select(WebhookEndpoint.id).where(WebhookEndpoint.space_id == space_id)
        statement = select(WebhookDelivery).where(
            WebhookDelivery.space_id == space_id,
            or_(WebhookDelivery.endpoint_id.in_(own), WebhookDelivery.endpoint_id.is_(None)),
        )
        if endpoint_id is not None:
            statement = statement.where(WebhookDelivery.endpoint_id == endpoint_id)
        if run_id is not None:
            statement = statement.where(WebhookDelivery.run_id == run_id)
        if status is not None:
            statement = statement.where(WebhookDelivery.status == status)
        return statement

    async def get_in_space(
        self, space_id: uuid.UUID, delivery_id: uuid.UUID, *, for_update: bool = False
    ) -> WebhookDelivery | None:
        statement = self.listing_statement(space_id).where(WebhookDelivery.id == delivery_id)
        return await self.get_one_or_none(statement.with_for_update() if for_update else statement)

    async def claim(
        self, delivery_id: uuid.UUID, now: datetime, hold_until: datetime
    ) -> WebhookDelivery | None:
        """Take a due delivery for one attempt: count it and hold it, so no other sender takes it meanwhile.

        One conditional update: a duplicate wake-up (beat sweep and a retry message at once) finds the
        delivery no longer due and sends nothing.
        """
        statement = (
            update(WebhookDelivery)
            .where(
                WebhookDelivery.id == delivery_id,
                WebhookDelivery.status == "pending",
                WebhookDelivery.next_attempt_at <= now,
                WebhookDelivery.attempts < WebhookDelivery.max_attempts,
            )
            .values(attempts=WebhookDelivery.attempts + 1, next_attempt_at=hold_until)
            .returning(WebhookDelivery)
            .execution_options(synchronize_session=False)
        )
        return (await self.session.scalars(statement)).one_or_none()

    async def due_ids(self, now: datetime, limit: int) -> Sequence[uuid.UUID]:
        """Deliveries owed and due (their wake-up was lost, or they are held by a sender that died)."""
        statement = (
            select(WebhookDelivery.id)
            .where(WebhookDelivery.status == "pending", WebhookDelivery.next_attempt_at <= now)
            .order_by(WebhookDelivery.next_attempt_at)
            .limit(limit)
        )
        return list((await self.session.scalars(statement)).all())


class WebhookAttemptRepository(RepositoryBase[WebhookAttempt]):
    model = WebhookAttempt

    async def for_deliveries(self, delivery_ids: Sequence[uuid.UUID]) -> list[WebhookAttempt]:
        if not delivery_ids:
            return []
        statement = (
            select(WebhookAttempt)
            .where(WebhookAttempt.delivery_id.in_(delivery_ids))
            .order_by(WebhookAttempt.delivery_id, WebhookAttempt.attempt)
        )
        return await self.get_all(statement)
