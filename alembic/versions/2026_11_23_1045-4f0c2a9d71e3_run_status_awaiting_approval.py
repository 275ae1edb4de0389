"""run status: room for awaiting_approval

The run-state machine has a state for runs that wait for a human. The status column grows from 16 to 32
characters (`awaiting_approval` has 17) and its CHECK constraint accepts the new value. Existing rows are
unchanged; the column stays a plain string.

Revision ID: 4f0c2a9d71e3
Revises: 5b1e7c0d2a94
Create Date: 2026-11-23 10:45:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "4f0c2a9d71e3"
down_revision: str | None = "5b1e7c0d2a94"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BEFORE = ("queued", "pending", "running", "succeeded", "failed", "cancelled", "timed_out", "dropped")
_AFTER = (*_BEFORE[:3], "awaiting_approval", *_BEFORE[3:])


def _one_of(values: tuple[str, ...]) -> str:
    return f"status IN ({', '.join(repr(v) for v in values)})"


def upgrade() -> None:
    op.drop_constraint(op.f("ck_runs_status"), "runs", type_="check")
    op.alter_column("runs", "status", type_=sa.String(length=32), existing_nullable=False)
    op.create_check_constraint(op.f("ck_runs_status"), "runs", _one_of(_AFTER))


def downgrade() -> None:
    op.drop_constraint(op.f("ck_runs_status"), "runs", type_="check")
    op.alter_column("runs", "status", type_=sa.String(length=16), existing_nullable=False)
    op.create_check_constraint(op.f("ck_runs_status"), "runs", _one_of(_BEFORE))
