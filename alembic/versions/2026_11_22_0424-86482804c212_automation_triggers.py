"""automation triggers

Revision ID: 86482804c212
Revises: c7db2001dc20
Create Date: 2026-11-22 04:24:56.378351+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "86482804c212"
down_revision: str | None = "c7db2001dc20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "automation_triggers",
        sa.Column("automation_id", sa.Uuid(), nullable=False),
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=True),
        sa.Column("config", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("event_type", sa.String(length=200), nullable=True),
        sa.Column("secret_hash", sa.String(length=64), nullable=True),
        sa.Column("token_prefix", sa.String(length=16), nullable=True),
        sa.Column("token_rotated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("next_fire_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_fired_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.ForeignKeyConstraint(
            ["automation_id"],
            ["automations.id"],
            name=op.f("fk_automation_triggers_automation_id_automations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["space_id"],
            ["spaces.id"],
            name=op.f("fk_automation_triggers_space_id_spaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_automation_triggers")),
    )
    op.create_index(
        "ix_automation_triggers_due",
        "automation_triggers",
        ["next_fire_at"],
        unique=False,
        postgresql_where=sa.text("type = 'schedule' AND next_fire_at IS NOT NULL"),
    )
    op.create_index(
        "ix_automation_triggers_event",
        "automation_triggers",
        ["space_id", "event_type"],
        unique=False,
        postgresql_where=sa.text("type = 'event'"),
    )
    op.create_index(
        "uq_automation_triggers_secret",
        "automation_triggers",
        ["secret_hash"],
        unique=True,
        postgresql_where=sa.text("secret_hash IS NOT NULL"),
    )
    op.create_index(
        "uq_automation_triggers_slot",
        "automation_triggers",
        ["automation_id", "type", "position"],
        unique=True,
    )


def downgrade() -> None:
    op.drop_index("uq_automation_triggers_slot", table_name="automation_triggers")
    op.drop_index(
        "uq_automation_triggers_secret",
        table_name="automation_triggers",
        postgresql_where=sa.text("secret_hash IS NOT NULL"),
    )
    op.drop_index(
        "ix_automation_triggers_event",
        table_name="automation_triggers",
        postgresql_where=sa.text("type = 'event'"),
    )
    op.drop_index(
        "ix_automation_triggers_due",
        table_name="automation_triggers",
        postgresql_where=sa.text("type = 'schedule' AND next_fire_at IS NOT NULL"),
    )
    op.drop_table("automation_triggers")
