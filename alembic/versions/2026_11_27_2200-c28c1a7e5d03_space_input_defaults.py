"""space_input_defaults: per-space values for inputs whose default is `$space_default`

Revision ID: c28c1a7e5d03
Revises: c28e5a7d3b10
Create Date: 2026-11-27 22:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "c28c1a7e5d03"
down_revision: str | None = "c28e5a7d3b10"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "space_input_defaults",
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column(
            "value",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=False,
            comment="Any JSON value; never a secret or a credential.",
        ),
        sa.Column("updated_by", sa.Uuid(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.ForeignKeyConstraint(
            ["space_id"],
            ["spaces.id"],
            name=op.f("fk_space_input_defaults_space_id_spaces"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["updated_by"],
            ["users.id"],
            name=op.f("fk_space_input_defaults_updated_by_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("space_id", "name", name=op.f("pk_space_input_defaults")),
    )


def downgrade() -> None:
    op.drop_table("space_input_defaults")
