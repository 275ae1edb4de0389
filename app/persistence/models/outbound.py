"""Outbound webhooks: a space's endpoints, the deliveries owed to them (the outbox) and every attempt."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, Index, Integer, LargeBinary, String, Text, func, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.persistence.base import Base, IdMixin, TimestampMixin

DELIVERY_STATUSES = ("pending", "succeeded", "failed")


class WebhookEndpoint(IdMixin, TimestampMixin, Base):
    """Where a space wants its events sent, and the signing secrets (sealed, needed in clear to sign)."""

    __tablename__ = "webhook_endpoints"
    __table_args__ = (Index("ix_webhook_endpoints_space_created", "space_id", "created_at"),)

    space_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("spaces.id", ondelete="CASCADE"),
        comment="Null for the operator-wide endpoint, which hears every space.",
    )
    url: Mapped[str] = mapped_column(Text)
    description: Mapped[str | None] = mapped_column(String(500))
    events: Mapped[list[str]] = mapped_column(JSONB)
    automation_ids: Mapped[list[str] | None] = mapped_column(
        JSONB, comment="Only these automations' events; null = all."
    )
    enabled: Mapped[bool] = mapped_column(default=True)
    disabled_reason: Mapped[str | None] = mapped_column(Text)
    secret_ciphertext: Mapped[bytes] = mapped_column(LargeBinary)
    previous_secret_ciphertext: Mapped[bytes | None] = mapped_column(
        LargeBinary, comment="The secret before the last rotation: it keeps signing until the time below."
    )
    previous_secret_expires_at: Mapped[datetime | None]
    consecutive_failures: Mapped[int] = mapped_column(
        Integer, default=0, comment="Deliveries failed for good in a row."
    )
    failing_since: Mapped[datetime | None] = mapped_column(
        comment="First failed attempt since the last success."
    )
    created_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class WebhookDelivery(IdMixin, Base):
    """One event owed to one endpoint. Its id is the `webhook-id` header, the same on every attempt."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        CheckConstraint(
            f"status IN ({', '.join(repr(s) for s in DELIVERY_STATUSES)})",
            name="status",
        ),
        Index("ix_webhook_deliveries_endpoint_created", "endpoint_id", "created_at", "id"),
        Index("ix_webhook_deliveries_run", "run_id"),
        # What the beat sweep looks at: only deliveries still owed.
        Index(
            "ix_webhook_deliveries_due",
            "next_attempt_at",
            postgresql_where=text("status = 'pending'"),
        ),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    endpoint_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("webhook_endpoints.id", ondelete="CASCADE"), comment="Null for a run's own callback URL."
    )
    callback_url: Mapped[str | None] = mapped_column(
        Text, comment="A run's callback URL, when it has no endpoint."
    )
    run_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    event_type: Mapped[str] = mapped_column(String(100))
    payload: Mapped[dict[str, Any]] = mapped_column(JSONB, comment="The exact body, signed as sent.")
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(
        Integer, comment="Attempts allowed in all (a redelivery allows one more)."
    )
    next_attempt_at: Mapped[datetime | None]
    last_status_code: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
    finished_at: Mapped[datetime | None]


class CallbackSecret(TimestampMixin, Base):
    """The secret that signs a space's per-run callbacks (sealed; needed in clear to sign)."""

    __tablename__ = "webhook_callback_secrets"

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"), primary_key=True)
    secret_ciphertext: Mapped[bytes] = mapped_column(LargeBinary)
    previous_secret_ciphertext: Mapped[bytes | None] = mapped_column(LargeBinary)
    previous_secret_expires_at: Mapped[datetime | None]


class WebhookAttempt(IdMixin, Base):
    """One try at sending a delivery: what the receiver answered, or why nothing was sent."""

    __tablename__ = "webhook_attempts"
    __table_args__ = (Index("uq_webhook_attempts_delivery_attempt", "delivery_id", "attempt", unique=True),)

    delivery_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("webhook_deliveries.id", ondelete="CASCADE"))
    attempt: Mapped[int] = mapped_column(Integer)
    status_code: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(Text, comment="Never holds the URL's path, query or userinfo.")
    duration_ms: Mapped[int] = mapped_column(Integer)
    next_attempt_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
