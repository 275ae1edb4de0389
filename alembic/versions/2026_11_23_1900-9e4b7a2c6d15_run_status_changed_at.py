"""runs.status_changed_at: when a run's status last moved, for the live stream's replay

A live stream that missed notifications (a `Last-Event-ID` reconnect, the API's LISTEN connection
dropped) replays the runs that changed meanwhile. Creation, start and finish have timestamps; a move to
`awaiting_approval` or from `queued` to `pending` had none, so such a run was missed until its next
change. Every statement that moves a status now writes this column in the same UPDATE or INSERT.
Existing rows take their latest known timestamp.

Revision ID: 9e4b7a2c6d15
Revises: c41d8e6b2f73
Create Date: 2026-11-23 19:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "9e4b7a2c6d15"
down_revision: str | None = "c41d8e6b2f73"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COMMENT = "When the status last moved (creation included); written by every statement that moves it."


def upgrade() -> None:
    op.add_column(
        "runs",
        sa.Column(
            "status_changed_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=True,
            comment=COMMENT,
        ),
    )
    op.execute("UPDATE runs SET status_changed_at = coalesce(finished_at, started_at, created_at)")
    op.alter_column("runs", "status_changed_at", existing_type=sa.DateTime(timezone=True), nullable=False)
    op.create_index("ix_runs_space_status_changed", "runs", ["space_id", "status_changed_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_runs_space_status_changed", table_name="runs")
    op.drop_column("runs", "status_changed_at")
