"""run_steps: `path` addresses a step record in a plan that is a tree

A step inside a `for_each` runs once per iteration, so its record is addressed by its path
(`fetch/3/classify`) rather than by its index in the plan. Existing records are top-level steps,
whose path is their step id. `step_index` stays: the step's index within its own list.

Revision ID: e31b4c7d2a10
Revises: e36q4b1d7a20
Create Date: 2026-11-28 13:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "e31b4c7d2a10"
down_revision: str | None = "e36q4b1d7a20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "run_steps",
        sa.Column(
            "path",
            sa.String(1024),
            nullable=True,
            comment="Which execution of the step: step_id behind `<loop>/<iteration>/` per loop around it.",
        ),
    )
    op.execute("UPDATE run_steps SET path = step_id")
    op.alter_column("run_steps", "path", nullable=False)
    op.drop_index("uq_run_steps_attempt", table_name="run_steps")
    op.create_index(
        "uq_run_steps_path_attempt", "run_steps", ["run_id", "phase", "path", "attempt"], unique=True
    )


def downgrade() -> None:
    op.drop_index("uq_run_steps_path_attempt", table_name="run_steps")
    # Records of loop iterations share their step's index: only the first of each keeps its place.
    op.execute(
        "DELETE FROM run_steps a USING run_steps b WHERE a.run_id = b.run_id AND a.phase = b.phase "
        "AND a.step_index = b.step_index AND a.attempt = b.attempt AND a.path > b.path"
    )
    op.create_index(
        "uq_run_steps_attempt", "run_steps", ["run_id", "phase", "step_index", "attempt"], unique=True
    )
    op.drop_column("run_steps", "path")
