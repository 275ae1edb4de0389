"""Automations and their immutable version history."""

from __future__ import annotations

import enum
import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Enum, ForeignKey, Index, Integer, String, func, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.persistence.base import Base, IdMixin, TimestampMixin
from app.persistence.models.triggers import AutomationTrigger


class AutomationStatus(enum.StrEnum):
    active = "active"
    paused = "paused"
    archived = "archived"


STATUS_ENUM = Enum(
    AutomationStatus, name="automation_status", values_callable=lambda items: [i.value for i in items]
)


class Automation(IdMixin, TimestampMixin, Base):
    __tablename__ = "automations"
    __table_args__ = (
        Index("ix_automations_space_created", "space_id", "created_at", "id"),
        # Tool names are unique per space among exposed automations.
        Index(
            "uq_automations_space_mcp_tool_name",
            "space_id",
            "mcp_tool_name",
            unique=True,
            postgresql_where=text("mcp_tool_name IS NOT NULL"),
        ),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    created_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(String(4000))
    status: Mapped[AutomationStatus] = mapped_column(STATUS_ENUM, default=AutomationStatus.paused)
    version: Mapped[int] = mapped_column(Integer, default=1)
    definition: Mapped[dict[str, Any]] = mapped_column(JSONB)
    archived_at: Mapped[datetime | None]
    coexistence_note: Mapped[str | None] = mapped_column(
        String(1000), comment="Why it may overlap other automations, given when activated despite them."
    )
    mcp_tool_name: Mapped[str | None] = mapped_column(
        String(64),
        comment="The MCP tool name it is exposed as (expose.mcp.tool_name); null when not exposed.",
    )
    action_modes: Mapped[dict[str, str]] = mapped_column(
        JSONB,
        default=dict,
        server_default="{}",
        comment="Permission overrides: capability id or pattern → mode.",
    )

    triggers: Mapped[list[AutomationTrigger]] = relationship(
        lazy="raise",
        order_by="(AutomationTrigger.type, AutomationTrigger.position)",
        cascade="all, delete-orphan",
        back_populates="automation",
    )


class AutomationVersion(Base):
    __tablename__ = "automation_versions"

    automation_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("automations.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    definition: Mapped[dict[str, Any]] = mapped_column(JSONB)
    created_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
    restored_from: Mapped[int | None] = mapped_column(Integer)
