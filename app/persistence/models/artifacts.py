"""Artifacts (files runs produced, stored by content hash) and the databases a space may query."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, Index, String, text
from sqlalchemy.orm import Mapped, mapped_column

from app.persistence.base import Base, IdMixin, TimestampMixin

ARTIFACT_KINDS = ("audio", "document", "image", "data")
RETENTIONS = ("transient", "default", "permanent")
VISIBILITIES = ("private", "space", "shared")
DATABASE_ACCESS = ("read", "write")


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Artifact(IdMixin, TimestampMixin, Base):
    """One file a step kept. The bytes live in the artifact store under `sha256`; rows may share them."""

    __tablename__ = "artifacts"
    __table_args__ = (
        CheckConstraint(_one_of("kind", ARTIFACT_KINDS), name="kind"),
        CheckConstraint(_one_of("retention", RETENTIONS), name="retention"),
        CheckConstraint(_one_of("visibility", VISIBILITIES), name="visibility"),
        Index("ix_artifacts_run_id", "run_id", "created_at"),
        Index("ix_artifacts_space_id", "space_id"),
        Index("ix_artifacts_sha256", "sha256"),
        # The retention sweep reads only rows that can expire, oldest first.
        Index("ix_artifacts_expires_at", "expires_at", postgresql_where=text("expires_at IS NOT NULL")),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    run_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    automation_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("automations.id", ondelete="SET NULL"))
    step_id: Mapped[str | None] = mapped_column(String(100))
    step_path: Mapped[str | None] = mapped_column(
        String(1024), comment="The path of the step execution that kept it (`<loop>/<iteration>/<step_id>`)."
    )
    name: Mapped[str] = mapped_column(String(255))
    kind: Mapped[str] = mapped_column(String(16))
    retention: Mapped[str] = mapped_column(String(16))
    visibility: Mapped[str] = mapped_column(String(16))
    size: Mapped[int] = mapped_column(BigInteger)
    content_type: Mapped[str] = mapped_column(String(255))
    sha256: Mapped[str] = mapped_column(String(64))
    expires_at: Mapped[datetime | None]


class SpaceDatabase(IdMixin, TimestampMixin, Base):
    """A PostgreSQL database a space registered for queries; its DSN is a secret's name."""

    __tablename__ = "databases"
    __table_args__ = (
        CheckConstraint(_one_of("access", DATABASE_ACCESS), name="access"),
        Index("uq_databases_space_id_name", "space_id", "name", unique=True),
        Index("uq_databases_space_id_tool_prefix", "space_id", "tool_prefix", unique=True),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(64))
    dsn_secret: Mapped[str] = mapped_column(String(64), comment="Name of the secret holding the DSN.")
    tool_prefix: Mapped[str] = mapped_column(String(40))
    access: Mapped[str] = mapped_column(
        String(8),
        server_default="read",
        comment="read: queries run read-only and the role may change nothing; write: an admin accepted "
        "a role that writes, and each query is a write call.",
    )
    created_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
