"""Secrets of a space: values encrypted at rest, referenced from definitions by name."""

from __future__ import annotations

import uuid

from sqlalchemy import ForeignKey, Index, LargeBinary, String, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.persistence.base import Base, IdMixin, TimestampMixin


class Secret(IdMixin, TimestampMixin, Base):
    """One named secret. `ciphertext` is sealed for (space id, name) and names its key (`key_id`)."""

    __tablename__ = "secrets"
    __table_args__ = (
        Index("uq_secrets_space_id_name", "space_id", "name", unique=True),
        # Key rotation looks for rows sealed under any key but the current one.
        Index("ix_secrets_key_id", "key_id"),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(64))
    description: Mapped[str | None] = mapped_column(String(500))
    ciphertext: Mapped[bytes] = mapped_column(LargeBinary)
    key_id: Mapped[str] = mapped_column(String(16), comment="Id of the key that sealed the ciphertext.")
    hosts: Mapped[list[str]] = mapped_column(
        JSONB,
        default=list,
        server_default=text("'[]'::jsonb"),
        comment="Host patterns the value may be sent to; empty: any host egress allows.",
    )
    created_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    updated_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))

    def __repr__(self) -> str:
        return f"Secret(space_id={self.space_id}, name={self.name!r}, key_id={self.key_id})"
