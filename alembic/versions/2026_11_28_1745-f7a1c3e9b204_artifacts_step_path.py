"""artifacts: `step_path` says which execution of a step kept the file

A step inside a `for_each` runs once per iteration: its artifacts are told apart by the step's path
(`fetch/3/save`), not by its step id alone. Existing artifacts were kept by top-level steps, whose path
is their step id.

Revision ID: f7a1c3e9b204
Revises: f1a7c3d9e2b4
Create Date: 2026-11-28 17:45:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "f7a1c3e9b204"
down_revision: str | None = "f1a7c3d9e2b4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "artifacts",
        sa.Column(
            "step_path",
            sa.String(1024),
            nullable=True,
            comment="The path of the step execution that kept it (`<loop>/<iteration>/<step_id>`).",
        ),
    )
    op.execute("UPDATE artifacts SET step_path = step_id")


def downgrade() -> None:
    op.drop_column("artifacts", "step_path")
