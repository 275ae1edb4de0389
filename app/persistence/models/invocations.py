"""`action_invocations`: every capability call a run made or asked to make, with its mode and outcome."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, Index, Integer, String, Text, func, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.definitions.invocation_states import InvocationStatus
from app.persistence.base import Base, IdMixin

INVOCATION_STATUSES = tuple(status.value for status in InvocationStatus)
DENIED_REASONS = ("policy", "human", "expired", "grant", "rate_limit", "pending_cap")


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class ActionInvocation(IdMixin, Base):
    __tablename__ = "action_invocations"
    __table_args__ = (
        CheckConstraint(_one_of("status", INVOCATION_STATUSES), name="status"),
        CheckConstraint(
            f"denied_reason IS NULL OR {_one_of('denied_reason', DENIED_REASONS)}", name="reason"
        ),
        # The audit listing (newest first) and the inbox (pending only, newest first).
        Index("ix_action_invocations_space_created", "space_id", "created_at", "id"),
        Index(
            "ix_action_invocations_pending",
            "space_id",
            "created_at",
            "id",
            postgresql_where=text("status = 'pending'"),
        ),
        # The sweeper: pending calls by expiry.
        Index("ix_action_invocations_expiry", "expires_at", postgresql_where=text("status = 'pending'")),
        Index("ix_action_invocations_run", "run_id", "created_at"),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    automation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("automations.id", ondelete="CASCADE"))
    run_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    step_id: Mapped[str] = mapped_column(String(64))
    call_key: Mapped[str] = mapped_column(String(200), comment="run/step/attempt/index of the call.")
    capability: Mapped[str] = mapped_column(String(100))
    tier: Mapped[str] = mapped_column(String(16))
    risk: Mapped[str] = mapped_column(String(8))
    destructive: Mapped[bool] = mapped_column(default=False)
    chosen_by: Mapped[str] = mapped_column(String(16), comment="definition or agent")
    mode: Mapped[str] = mapped_column(String(32))
    mode_source: Mapped[str] = mapped_column(String(32))
    mode_rule: Mapped[dict[str, Any] | None] = mapped_column(
        JSONB, comment="The mode rule that decided ({level, index}), when one did."
    )
    required_approvals: Mapped[int] = mapped_column(
        Integer, server_default="1", default=1, comment="Distinct members who must approve."
    )
    params: Mapped[Any | None] = mapped_column(JSONB, comment="Redacted; secrets as references.")
    params_hash: Mapped[str | None] = mapped_column(
        String(64), comment="SHA-256 of the full arguments (before redaction) an approval covers."
    )
    target: Mapped[str | None] = mapped_column(
        Text, comment="For a call that asked for approval: its target, which `always` grants."
    )
    status: Mapped[str] = mapped_column(String(16))
    result: Mapped[Any | None] = mapped_column(JSONB, comment="Redacted, at most 10 KB, cut structurally.")
    error: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    denied_reason: Mapped[str | None] = mapped_column(String(16))
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    fence: Mapped[int | None] = mapped_column(Integer, comment="The run attempt that took the approved call.")
    decided_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    decided_at: Mapped[datetime | None]
    decision_scope: Mapped[str | None] = mapped_column(String(16))
    decision_note: Mapped[str | None] = mapped_column(Text)
    expires_at: Mapped[datetime | None]
    completed_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
