"""What approvals leave beside the invocation: each approver's decision, email links, outbound notices."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, Index, Integer, String, Text, UniqueConstraint, func, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.persistence.base import Base, IdMixin

DECISIONS = ("approve", "deny")
DECIDED_VIA = ("api", "slack", "email")
NOTICE_KINDS = ("slack_post", "slack_update", "email")
NOTICE_STATUSES = ("pending", "sent", "failed")


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class ApprovalDecision(IdMixin, Base):
    """One member's decision on a pending call: a call needing N approvers waits for N distinct ones."""

    __tablename__ = "approval_decisions"
    __table_args__ = (
        CheckConstraint(_one_of("decision", DECISIONS), name="decision"),
        CheckConstraint(_one_of("via", DECIDED_VIA), name="via"),
        # One decision per member and call: a second approval by the same person counts nothing.
        UniqueConstraint("invocation_id", "user_id", name="uq_approval_decisions_invocation_user"),
    )

    invocation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("action_invocations.id", ondelete="CASCADE"))
    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    decision: Mapped[str] = mapped_column(String(8))
    via: Mapped[str] = mapped_column(String(8))
    note: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())


class ApprovalLink(IdMixin, Base):
    """A signed email link to decide one call, bound to one approver, used at most once."""

    __tablename__ = "approval_links"
    __table_args__ = (Index("ix_approval_links_invocation", "invocation_id"),)

    invocation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("action_invocations.id", ondelete="CASCADE"))
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, comment="SHA-256 of the link's token.")
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())


class ApprovalNotice(IdMixin, Base):
    """An outbound notice about an approval (a Slack message, its update, an email), sent after commit."""

    __tablename__ = "approval_notices"
    __table_args__ = (
        CheckConstraint(_one_of("kind", NOTICE_KINDS), name="kind"),
        CheckConstraint(_one_of("status", NOTICE_STATUSES), name="status"),
        Index("ix_approval_notices_due", "next_attempt_at", postgresql_where=text("status = 'pending'")),
        Index("ix_approval_notices_invocation", "invocation_id"),
    )

    invocation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("action_invocations.id", ondelete="CASCADE"))
    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))
    user_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), comment="The approver an email goes to."
    )
    payload: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default=text("'{}'::jsonb"))
    status: Mapped[str] = mapped_column(String(8), server_default="pending")
    attempts: Mapped[int] = mapped_column(Integer, server_default="0")
    next_attempt_at: Mapped[datetime] = mapped_column(server_default=func.now())
    last_error: Mapped[str | None] = mapped_column(Text)
    external_ref: Mapped[dict[str, Any] | None] = mapped_column(
        JSONB, comment="Where the notice landed (Slack channel and ts)."
    )
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
    sent_at: Mapped[datetime | None]
