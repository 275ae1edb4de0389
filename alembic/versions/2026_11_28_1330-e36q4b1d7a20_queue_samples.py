"""queue_samples: each space's queued and pending runs per worker queue, once a minute

The Queue page charts how many runs waited on each queue over the last hours; the runs table only
knows the present, so beat's tick samples it.

Revision ID: e36q4b1d7a20
Revises: d36a1f2c9e40
Create Date: 2026-11-28 13:30:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "e36q4b1d7a20"
down_revision: str | None = "d36a1f2c9e40"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "queue_samples",
        sa.Column("space_id", sa.Uuid(), sa.ForeignKey("spaces.id", ondelete="CASCADE"), nullable=False),
        sa.Column(
            "sampled_at", sa.DateTime(timezone=True), nullable=False, comment="The minute sampled (UTC)."
        ),
        sa.Column("queue", sa.String(32), nullable=False),
        sa.Column("queued", sa.Integer(), nullable=False, comment="Runs held back (status queued)."),
        sa.Column("pending", sa.Integer(), nullable=False, comment="Runs admitted and waiting for a worker."),
        sa.PrimaryKeyConstraint("space_id", "sampled_at", "queue"),
    )
    op.create_index("ix_queue_samples_sampled_at", "queue_samples", ["sampled_at"])


def downgrade() -> None:
    op.drop_index("ix_queue_samples_sampled_at", table_name="queue_samples")
    op.drop_table("queue_samples")
