"""Which installed plugins a space enabled (a row per (space, plugin id) someone switched), and what
their pollers and subscriptions ran there."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.persistence.base import Base, IdMixin, TimestampMixin, utcnow


class SpacePlugin(TimestampMixin, Base):
    """A space's switch for one plugin id. No row means disabled: a new plugin starts off everywhere."""

    __tablename__ = "space_plugins"

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"), primary_key=True)
    plugin_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    enabled: Mapped[bool] = mapped_column(Boolean, default=False)
    updated_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    enabled_at: Mapped[datetime | None] = mapped_column(
        comment="When it was last switched on: subscriptions hear the space's events from then."
    )
    settings: Mapped[dict[str, Any]] = mapped_column(
        JSONB, default=dict, server_default=text("'{}'::jsonb"), comment="Validated by the plugin's schema."
    )

    def __repr__(self) -> str:
        return f"SpacePlugin(space_id={self.space_id}, plugin_id={self.plugin_id!r}, enabled={self.enabled})"


class PluginTask(IdMixin, Base):
    """One run of a poller (per slot) or of a subscription (per event) in a space.

    `key` is unique: whoever inserts it first owns the run, so a slot or an event is handled once
    however many beats tick or workers take the message. Status: queued → running → succeeded, failed,
    timed_out (cut at its bound), skipped (the plugin was switched off, or the chain is too deep) or lost
    (its worker died mid-run; not run again).
    """

    __tablename__ = "plugin_tasks"
    __table_args__ = (
        Index("ix_plugin_tasks_space_plugin", "space_id", "plugin_id", "created_at"),
        Index("ix_plugin_tasks_open", "created_at", postgresql_where=text("status IN ('queued', 'running')")),
        Index("ix_plugin_tasks_created", "created_at"),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    plugin_id: Mapped[str] = mapped_column(String(100))
    kind: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(100))
    key: Mapped[str] = mapped_column(String(400), unique=True)
    event_id: Mapped[uuid.UUID | None]
    status: Mapped[str] = mapped_column(String(16))
    error: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    emitted: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
