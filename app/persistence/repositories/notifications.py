"""Queries over in-app notifications."""

from __future__ import annotations

import uuid

from sqlalchemy import Select, select

from app.persistence.models import Notification
from app.persistence.repositories.base import RepositoryBase


class NotificationRepository(RepositoryBase[Notification]):
    model = Notification

    def space_statement(self, space_id: uuid.UUID) -> Select[Notification]:
        return select(Notification).where(Notification.space_id == space_id)
