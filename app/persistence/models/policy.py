"""Standing approvals (`approve … scope: always`) and the record of every change to a space's policy."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, Index, Integer, String, Text, func, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.persistence.base import Base, IdMixin

POLICY_CHANGE_KINDS = (
    "space_modes",
    "automation_modes",
    "approval_settings",
    "approval_grant_added",
    "approval_grant_revoked",
    "slack_approvals",
    "email_approvals",
)


class ApprovalGrant(IdMixin, Base):
    """`approve … scope: always`: later calls of one step to one target run without asking.

    Bound to the call a human approved: the automation, the step, the capability and the call's target
    (`Capability.target_of`). A call of that step and capability with another target finds the grant
    lapsed (`lapsed_at`), and asks again.
    """

    __tablename__ = "approval_grants"
    __table_args__ = (
        # What a claim reads (the automation's live grants), and at most one live grant per call.
        Index(
            "ix_approval_grants_live",
            "automation_id",
            "capability",
            "step_id",
            "target",
            unique=True,
            postgresql_where=text("lapsed_at IS NULL"),
        ),
        Index("ix_approval_grants_automation_granted", "automation_id", "granted_at"),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    automation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("automations.id", ondelete="CASCADE"))
    capability: Mapped[str] = mapped_column(String(100))
    step_id: Mapped[str] = mapped_column(String(64))
    target: Mapped[str] = mapped_column(Text, comment="The approved call's target (per capability).")
    definition_version: Mapped[int] = mapped_column(Integer, comment="The version the approved run ran.")
    granted_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    granted_at: Mapped[datetime] = mapped_column(server_default=func.now())
    invocation_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("action_invocations.id", ondelete="SET NULL"), comment="The approval it came from."
    )
    lapsed_at: Mapped[datetime | None]
    lapsed_version: Mapped[int | None] = mapped_column(
        Integer, comment="The version whose call of the step had another target."
    )
    lapsed_target: Mapped[str | None] = mapped_column(Text, comment="That call's target.")


class PolicyChange(IdMixin, Base):
    """One change to a space's permission policy: who, when, what it was before and after."""

    __tablename__ = "policy_changes"
    __table_args__ = (
        CheckConstraint(f"kind IN ({', '.join(repr(k) for k in POLICY_CHANGE_KINDS)})", name="kind"),
        Index("ix_policy_changes_space_created", "space_id", "created_at", "id"),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    automation_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("automations.id", ondelete="SET NULL"), comment="None: a change of the space itself."
    )
    actor_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    kind: Mapped[str] = mapped_column(String(32))
    before: Mapped[Any | None] = mapped_column(JSONB)
    after: Mapped[Any | None] = mapped_column(JSONB)
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
