"""In-app notifications of a space: written by the `notify.send` capability, listed by the API."""

from __future__ import annotations

import uuid

from app.persistence.base import utcnow
from app.persistence.models import Notification
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.notifications import NotificationRepository
from app.persistence.types import AsyncSession
from app.services.identity.access import Permissions, SpaceAccess


class NotificationService:
    async def create(
        self,
        session: AsyncSession,
        *,
        space_id: uuid.UUID,
        run_id: uuid.UUID | None,
        level: str,
        title: str,
        body: str,
    ) -> Notification:
        notification = Notification(
            id=uuid.uuid4(),
            space_id=space_id,
            run_id=run_id,
            level=level,
            title=title,
            body=body,
            created_at=utcnow(),
        )
        return await NotificationRepository(session).insert(notification)

    async def list(
        self, session: AsyncSession, access: SpaceAccess, *, limit: int, cursor: str | None
    ) -> Page[Notification]:
        access.require(Permissions.read)
        return await paginate(
            session,
            NotificationRepository(session).space_statement(access.space_id),
            order_by=[Notification.created_at, Notification.id],
            limit=limit,
            cursor=cursor,
        )


notification_service = NotificationService()
