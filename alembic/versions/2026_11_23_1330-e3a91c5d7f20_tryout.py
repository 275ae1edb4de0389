"""try before you trust: run modes and replays, suppressed calls, per-automation key/value state,
and the note kept when an overlapping automation is activated

Revision ID: e3a91c5d7f20
Revises: 3a9f6c2e8d41
Create Date: 2026-11-23 13:30:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "e3a91c5d7f20"
down_revision: str | None = "3a9f6c2e8d41"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "runs",
        sa.Column(
            "mode", sa.String(16), server_default="live", nullable=False, comment="live, dry_run or verify."
        ),
    )
    op.add_column(
        "runs",
        sa.Column(
            "llm_mode",
            sa.String(8),
            server_default="run",
            nullable=False,
            comment="skip: a dry or verify run calls no model.",
        ),
    )
    op.add_column(
        "runs", sa.Column("replay_of", sa.Uuid(), nullable=True, comment="The run this one replays.")
    )
    op.create_foreign_key(
        op.f("fk_runs_replay_of_runs"), "runs", "runs", ["replay_of"], ["id"], ondelete="SET NULL"
    )
    op.create_check_constraint(op.f("ck_runs_mode"), "runs", "mode IN ('live', 'dry_run', 'verify')")
    op.create_check_constraint(op.f("ck_runs_llm_mode"), "runs", "llm_mode IN ('run', 'skip')")
    op.add_column(
        "run_steps",
        sa.Column(
            "suppressed",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=True,
            comment="Calls a dry or verify run held back in this attempt: capability, params, mode.",
        ),
    )
    op.add_column(
        "automations",
        sa.Column(
            "coexistence_note",
            sa.String(1000),
            nullable=True,
            comment="Why it may overlap other automations, given when activated despite them.",
        ),
    )
    op.create_table(
        "automation_kv",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("automation_id", sa.Uuid(), nullable=False),
        sa.Column("key", sa.String(256), nullable=False),
        sa.Column("value", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_automation_kv_space_id_spaces"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["automation_id"],
            ["automations.id"],
            name=op.f("fk_automation_kv_automation_id_automations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_automation_kv")),
    )
    op.create_index("uq_automation_kv_automation_key", "automation_kv", ["automation_id", "key"], unique=True)
    op.create_index(
        "ix_automation_kv_expires",
        "automation_kv",
        ["expires_at"],
        postgresql_where=sa.text("expires_at IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_automation_kv_expires", table_name="automation_kv")
    op.drop_index("uq_automation_kv_automation_key", table_name="automation_kv")
    op.drop_table("automation_kv")
    op.drop_column("automations", "coexistence_note")
    op.drop_column("run_steps", "suppressed")
    op.drop_constraint(op.f("ck_runs_llm_mode"), "runs", type_="check")
    op.drop_constraint(op.f("ck_runs_mode"), "runs", type_="check")
    op.drop_constraint(op.f("fk_runs_replay_of_runs"), "runs", type_="foreignkey")
    op.drop_column("runs", "replay_of")
    op.drop_column("runs", "llm_mode")
    op.drop_column("runs", "mode")
