"""runs: the pending runs of each queue in claim order, for a worker's direct claim

A worker that finished a run claims the next pending run of its queue straight from the table: the
highest priority, then the oldest. This partial index answers that pick without sorting the backlog,
and stays as small as the pending runs.

Revision ID: f1a7c3d9e2b4
Revises: e31b4c7d2a10
Create Date: 2026-11-28 17:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "f1a7c3d9e2b4"
down_revision: str | None = "e31b4c7d2a10"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_runs_pending_order",
        "runs",
        ["queue", sa.text("priority DESC"), "created_at", "id"],
        postgresql_where=sa.text("status = 'pending'"),
    )


def downgrade() -> None:
    op.drop_index("ix_runs_pending_order", table_name="runs")
