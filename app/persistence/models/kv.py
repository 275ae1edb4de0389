"""Per-automation key/value state: small JSON values an automation keeps between its runs."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.persistence.base import Base, IdMixin, TimestampMixin


class AutomationKv(IdMixin, TimestampMixin, Base):
    """One key of one automation. An entry past `expires_at` is gone for every reader."""

    __tablename__ = "automation_kv"
    __table_args__ = (
        Index("uq_automation_kv_automation_key", "automation_id", "key", unique=True),
        Index("ix_automation_kv_expires", "expires_at", postgresql_where=text("expires_at IS NOT NULL")),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    automation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("automations.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(256))
    value: Mapped[Any] = mapped_column(JSONB)
    expires_at: Mapped[datetime | None]
