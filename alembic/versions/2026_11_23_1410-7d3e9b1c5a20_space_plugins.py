"""space_plugins: which installed plugins each space enabled

Revision ID: 7d3e9b1c5a20
Revises: 7c3d9e1f5a20
Create Date: 2026-11-23 13:40:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "7d3e9b1c5a20"
down_revision: str | None = "7c3d9e1f5a20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "space_plugins",
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("plugin_id", sa.String(length=100), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("updated_by", sa.Uuid(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_space_plugins_space_id_spaces"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["updated_by"], ["users.id"], name=op.f("fk_space_plugins_updated_by_users"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("space_id", "plugin_id", name=op.f("pk_space_plugins")),
    )


def downgrade() -> None:
    op.drop_table("space_plugins")
