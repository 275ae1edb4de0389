"""runs: index (automation_id, created_at) for one automation's runs by day

The charts of an automation page sum its runs per day over a bounded range; without this index the
query reads every run of the automation (ix_runs_automation_status has no time).

Revision ID: d36a1f2c9e40
Revises: d32b7e4a1c05
Create Date: 2026-11-28 01:10:00.000000+00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "d36a1f2c9e40"
down_revision: str | None = "d32b7e4a1c05"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_runs_automation_created", "runs", ["automation_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_runs_automation_created", table_name="runs")
