"""runs.priority, promoted_at, promotion_reason: the queue in priority order, and why a run left it

Queued runs are promoted by priority (higher first), then by age. Every promotion writes when it happened
and why (`slot freed by run <id>`, `queue check`), which the run's timeline shows. The queue's partial
index follows the new order.

Revision ID: c28d1a5e7b30
Revises: c28c1a7e5d03
Create Date: 2026-11-27 22:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "c28d1a5e7b30"
down_revision: str | None = "c28c1a7e5d03"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

QUEUED = sa.text("status = 'queued'")


def upgrade() -> None:
    op.add_column(
        "runs",
        sa.Column(
            "priority",
            sa.Integer(),
            server_default="0",
            nullable=False,
            comment="Queued runs are promoted by priority (higher first), then oldest first.",
        ),
    )
    op.add_column(
        "runs",
        sa.Column(
            "promoted_at",
            sa.DateTime(timezone=True),
            nullable=True,
            comment="When the promoter moved it from queued to pending.",
        ),
    )
    op.add_column(
        "runs",
        sa.Column(
            "promotion_reason",
            sa.Text(),
            nullable=True,
            comment="Why it was promoted then, e.g. slot freed by run <id>.",
        ),
    )
    op.create_check_constraint(op.f("ck_runs_priority_range"), "runs", "priority BETWEEN -1000 AND 1000")
    op.drop_index("ix_runs_queued", table_name="runs", postgresql_where=QUEUED)
    op.create_index(
        "ix_runs_queued",
        "runs",
        [sa.text("priority DESC"), "created_at", "id"],
        unique=False,
        postgresql_where=QUEUED,
    )


def downgrade() -> None:
    op.drop_index("ix_runs_queued", table_name="runs", postgresql_where=QUEUED)
    op.create_index("ix_runs_queued", "runs", ["created_at"], unique=False, postgresql_where=QUEUED)
    op.drop_constraint(op.f("ck_runs_priority_range"), "runs", type_="check")
    op.drop_column("runs", "promotion_reason")
    op.drop_column("runs", "promoted_at")
    op.drop_column("runs", "priority")
