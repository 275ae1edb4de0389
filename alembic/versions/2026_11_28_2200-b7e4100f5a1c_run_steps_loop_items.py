"""run_steps: `loop_items`, the list a `for_each` iterates, fixed when the loop begins

A later claim of the run (after a wait, an approval, a lost lease) continues the loop over this list
instead of rendering `items` again, so its recorded iterations keep matching their items.

Revision ID: b7e4100f5a1c
Revises: f7a1c3e9b204
Create Date: 2026-11-28 22:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "b7e4100f5a1c"
down_revision: str | None = "f7a1c3e9b204"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "run_steps",
        sa.Column(
            "loop_items",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=True,
            comment="For a for_each: the full list it iterates, rendered when it began (secrets scrubbed).",
        ),
    )


def downgrade() -> None:
    op.drop_column("run_steps", "loop_items")
