"""artifacts and databases

Revision ID: 3a9f6c2e8d41
Revises: b5e2d7a41c09
Create Date: 2026-11-23 13:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "3a9f6c2e8d41"
down_revision: str | None = "b5e2d7a41c09"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "artifacts",
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("run_id", sa.Uuid(), nullable=True),
        sa.Column("automation_id", sa.Uuid(), nullable=True),
        sa.Column("step_id", sa.String(length=100), nullable=True),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("retention", sa.String(length=16), nullable=False),
        sa.Column("visibility", sa.String(length=16), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("content_type", sa.String(length=255), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        *_timestamps(),
        sa.CheckConstraint("kind IN ('audio', 'document', 'image', 'data')", name=op.f("ck_artifacts_kind")),
        sa.CheckConstraint(
            "retention IN ('transient', 'default', 'permanent')", name=op.f("ck_artifacts_retention")
        ),
        sa.CheckConstraint(
            "visibility IN ('private', 'space', 'shared')", name=op.f("ck_artifacts_visibility")
        ),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_artifacts_space_id_spaces"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_artifacts_run_id_runs"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["automation_id"],
            ["automations.id"],
            name=op.f("fk_artifacts_automation_id_automations"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_artifacts")),
    )
    op.create_index("ix_artifacts_run_id", "artifacts", ["run_id", "created_at"])
    op.create_index("ix_artifacts_space_id", "artifacts", ["space_id"])
    op.create_index("ix_artifacts_sha256", "artifacts", ["sha256"])
    op.create_index(
        "ix_artifacts_expires_at",
        "artifacts",
        ["expires_at"],
        postgresql_where=sa.text("expires_at IS NOT NULL"),
    )
    op.create_table(
        "databases",
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column(
            "dsn_secret", sa.String(length=64), nullable=False, comment="Name of the secret holding the DSN."
        ),
        sa.Column("tool_prefix", sa.String(length=40), nullable=False),
        sa.Column("created_by", sa.Uuid(), nullable=True),
        *_timestamps(),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_databases_space_id_spaces"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_databases_created_by_users"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_databases")),
    )
    op.create_index("uq_databases_space_id_name", "databases", ["space_id", "name"], unique=True)
    op.create_index(
        "uq_databases_space_id_tool_prefix", "databases", ["space_id", "tool_prefix"], unique=True
    )


def downgrade() -> None:
    op.drop_table("databases")
    op.drop_table("artifacts")
