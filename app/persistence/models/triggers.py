"""Triggers of automations, one row per trigger of the current definition."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.persistence.base import Base, IdMixin, TimestampMixin

if TYPE_CHECKING:
    from app.persistence.models.automations import Automation


class AutomationTrigger(IdMixin, TimestampMixin, Base):
    """A trigger row keeps what the definition cannot: its token digest, its schedule position, its history.

    Rows are matched to the definition by (type, position among triggers of that type), so editing a
    webhook trigger's mapping keeps its token, and editing a schedule recomputes its next fire.
    """

    __tablename__ = "automation_triggers"
    __table_args__ = (
        Index("uq_automation_triggers_slot", "automation_id", "type", "position", unique=True),
        Index(
            "ix_automation_triggers_due",
            "next_fire_at",
            postgresql_where=text("type = 'schedule' AND next_fire_at IS NOT NULL"),
        ),
        Index(
            "ix_automation_triggers_event", "space_id", "event_type", postgresql_where=text("type = 'event'")
        ),
        Index(
            "uq_automation_triggers_secret",
            "secret_hash",
            unique=True,
            postgresql_where=text("secret_hash IS NOT NULL"),
        ),
    )

    automation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("automations.id", ondelete="CASCADE"))
    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    type: Mapped[str] = mapped_column(String(16))
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str | None] = mapped_column(String(200))
    config: Mapped[dict[str, Any]] = mapped_column(JSONB)
    enabled: Mapped[bool] = mapped_column(default=True)
    event_type: Mapped[str | None] = mapped_column(String(200))
    secret_hash: Mapped[str | None] = mapped_column(String(64))
    token_prefix: Mapped[str | None] = mapped_column(String(16))
    token_rotated_at: Mapped[datetime | None]
    next_fire_at: Mapped[datetime | None]
    last_fired_at: Mapped[datetime | None]

    automation: Mapped[Automation] = relationship(lazy="raise", back_populates="triggers")


class EventTriggerGeneration(Base):
    """A space's event trigger generation: the database bumps it (row triggers on automation_triggers)
    whenever an event trigger of the space is added, removed, or changes what it matches."""

    __tablename__ = "event_trigger_generations"

    space_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    generation: Mapped[int] = mapped_column(BigInteger)
