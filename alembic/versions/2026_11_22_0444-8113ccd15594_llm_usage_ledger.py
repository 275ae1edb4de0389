"""llm usage ledger

Revision ID: 8113ccd15594
Revises: 86482804c212
Create Date: 2026-11-22 04:44:46.720032+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "8113ccd15594"
down_revision: str | None = "86482804c212"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "llm_usage",
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("automation_id", sa.Uuid(), nullable=False),
        sa.Column("run_id", sa.Uuid(), nullable=False),
        sa.Column("step_id", sa.String(length=64), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("input_tokens", sa.Integer(), nullable=False),
        sa.Column("output_tokens", sa.Integer(), nullable=False),
        sa.Column("cost_usd", sa.Numeric(precision=12, scale=6), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["automation_id"],
            ["automations.id"],
            name=op.f("fk_llm_usage_automation_id_automations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_llm_usage_run_id_runs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_llm_usage_space_id_spaces"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_llm_usage")),
    )
    op.create_index(
        "ix_llm_usage_automation_created", "llm_usage", ["automation_id", "created_at"], unique=False
    )
    op.create_index("ix_llm_usage_run", "llm_usage", ["run_id"], unique=False)
    op.add_column(
        "runs",
        # Existing runs used no LLM tokens.
        sa.Column(
            "llm_tokens",
            sa.Integer(),
            nullable=False,
            server_default="0",
            comment="LLM input + output tokens so far.",
        ),
    )


def downgrade() -> None:
    op.drop_column("runs", "llm_tokens")
    op.drop_index("ix_llm_usage_run", table_name="llm_usage")
    op.drop_index("ix_llm_usage_automation_created", table_name="llm_usage")
    op.drop_table("llm_usage")
