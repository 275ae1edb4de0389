"""Which installed plugins a space enabled: a row per (space, plugin id) someone switched."""

from __future__ import annotations

import uuid

from sqlalchemy import Boolean, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from app.persistence.base import Base, TimestampMixin


class SpacePlugin(TimestampMixin, Base):
    """A space's switch for one plugin id. No row means disabled: a new plugin starts off everywhere."""

    __tablename__ = "space_plugins"

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"), primary_key=True)
    plugin_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    enabled: Mapped[bool] = mapped_column(Boolean, default=False)
    updated_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))

    def __repr__(self) -> str:
        return f"SpacePlugin(space_id={self.space_id}, plugin_id={self.plugin_id!r}, enabled={self.enabled})"
