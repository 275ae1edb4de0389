"""authoring in the llm ledger

Revision ID: 5d0c1f2a9b7e
Revises: 68787df6903c
Create Date: 2026-11-23 09:45:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "5d0c1f2a9b7e"
down_revision: str | None = "68787df6903c"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Drafting calls belong to a draft, not to a run: the run columns become optional.
    op.alter_column("llm_usage", "automation_id", existing_type=sa.Uuid(), nullable=True)
    op.alter_column("llm_usage", "run_id", existing_type=sa.Uuid(), nullable=True)
    op.alter_column("llm_usage", "step_id", existing_type=sa.String(length=64), nullable=True)
    op.add_column("llm_usage", sa.Column("draft_id", sa.String(length=64), nullable=True))
    op.add_column(
        "llm_usage", sa.Column("purpose", sa.String(length=32), server_default="run", nullable=False)
    )
    op.create_check_constraint(
        op.f("ck_llm_usage_run_or_draft"), "llm_usage", "run_id IS NOT NULL OR draft_id IS NOT NULL"
    )
    op.create_index(
        "ix_llm_usage_space_authoring",
        "llm_usage",
        ["space_id", "created_at"],
        unique=False,
        postgresql_where=sa.text("draft_id IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_llm_usage_space_authoring", table_name="llm_usage")
    op.drop_constraint(op.f("ck_llm_usage_run_or_draft"), "llm_usage", type_="check")
    op.execute("DELETE FROM llm_usage WHERE run_id IS NULL")
    op.drop_column("llm_usage", "purpose")
    op.drop_column("llm_usage", "draft_id")
    op.alter_column("llm_usage", "step_id", existing_type=sa.String(length=64), nullable=False)
    op.alter_column("llm_usage", "run_id", existing_type=sa.Uuid(), nullable=False)
    op.alter_column("llm_usage", "automation_id", existing_type=sa.Uuid(), nullable=False)
