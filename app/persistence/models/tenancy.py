"""Spaces (tenants), users, memberships and API tokens."""

from __future__ import annotations

import enum
import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, Enum, ForeignKey, Index, String, Text, func
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.persistence.base import Base, IdMixin, TimestampMixin


class Role(enum.StrEnum):
    owner = "owner"
    admin = "admin"
    member = "member"


ROLE_ENUM = Enum(Role, name="membership_role", values_callable=lambda roles: [r.value for r in roles])


class Space(IdMixin, TimestampMixin, Base):
    __tablename__ = "spaces"

    name: Mapped[str] = mapped_column(String(200))
    action_modes: Mapped[dict[str, str]] = mapped_column(
        JSONB,
        default=dict,
        server_default="{}",
        comment="Space default modes: capability id or pattern → mode.",
    )
    settings: Mapped[dict[str, Any]] = mapped_column(
        JSONB, default=dict, server_default="{}", comment="approval_ttl_seconds, forbid_self_approval."
    )


class User(IdMixin, TimestampMixin, Base):
    __tablename__ = "users"
    email: Mapped[str] = mapped_column(String(320), unique=True, comment="Stored lower-cased.")
    name: Mapped[str | None] = mapped_column(String(200))
    password_hash: Mapped[str | None] = mapped_column(
        Text, comment="Argon2id hash; null until `automations set-password` or the user sets one."
    )
    password_changed_at: Mapped[datetime | None]


class Membership(TimestampMixin, Base):
    __tablename__ = "memberships"
    __table_args__ = (Index("ix_memberships_user_id", "user_id"),)

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    role: Mapped[Role] = mapped_column(ROLE_ENUM)

    user: Mapped[User] = relationship(lazy="raise")


class TokenKind(enum.StrEnum):
    personal = "personal"
    """Made in the API (or by `create-admin`); always expires."""
    session = "session"
    """Made by a password sign-in; expires after hours."""
    service = "service"
    """Made by an admin for themselves with no expiry, for unattended jobs; listed as such."""


class ApiToken(IdMixin, Base):
    __tablename__ = "api_tokens"
    __table_args__ = (
        Index("ix_api_tokens_user_id", "user_id"),
        CheckConstraint("kind IN ('personal', 'session', 'service')", name="kind"),
        # Only a service token may live forever: the database refuses any other without an end.
        CheckConstraint("expires_at IS NOT NULL OR kind = 'service'", name="expiry"),
    )

    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16), default=TokenKind.personal, server_default="personal")
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    display_prefix: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
    expires_at: Mapped[datetime | None]
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]
    scopes: Mapped[dict[str, Any] | None] = mapped_column(
        JSONB,
        comment="Null: full access. Otherwise only what it names, e.g. {'mcp': {'automations': [ids]}}.",
    )


class Invitation(IdMixin, Base):
    """A single-use secret that lets a user added to a space set their first password.

    It is no API token (it authenticates nothing else), it expires after hours, and a renewal
    withdraws the earlier ones. Only its digest is stored."""

    __tablename__ = "invitations"
    __table_args__ = (Index("ix_invitations_user_id", "user_id"),)

    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    space_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("spaces.id", ondelete="CASCADE"), comment="The space whose admin made the user."
    )
    created_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None] = mapped_column(comment="Accepted, or withdrawn by a renewal.")
