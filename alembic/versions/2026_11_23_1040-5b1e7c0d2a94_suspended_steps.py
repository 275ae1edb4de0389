"""suspended steps: a step attempt may pause at a capability call

Revision ID: 5b1e7c0d2a94
Revises: 5d0c1f2a9b7e
Create Date: 2026-11-23 10:40:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "5b1e7c0d2a94"
down_revision: str | None = "5d0c1f2a9b7e"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_constraint(op.f("ck_run_steps_status"), "run_steps", type_="check")
    op.create_check_constraint(
        op.f("ck_run_steps_status"),
        "run_steps",
        "status IN ('running', 'succeeded', 'failed', 'skipped', 'suspended')",
    )
    op.add_column(
        "run_steps",
        sa.Column(
            "suspension",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=True,
            comment="For a suspended attempt: the paused call's identity, capability and reason.",
        ),
    )


def downgrade() -> None:
    op.drop_column("run_steps", "suspension")
    op.execute("DELETE FROM run_steps WHERE status = 'suspended'")
    op.drop_constraint(op.f("ck_run_steps_status"), "run_steps", type_="check")
    op.create_check_constraint(
        op.f("ck_run_steps_status"), "run_steps", "status IN ('running', 'succeeded', 'failed', 'skipped')"
    )
