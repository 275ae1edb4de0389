"""user passwords: an Argon2id hash for signing in to the web UI

Revision ID: a7c3e91f5d20
Revises: 7d3e9b1c5a20
Create Date: 2026-11-23 13:40:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "a7c3e91f5d20"
down_revision: str | None = "7d3e9b1c5a20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "users",
        sa.Column(
            "password_hash",
            sa.Text(),
            nullable=True,
            comment="Argon2id hash; null until `automations set-password` or the user sets one.",
        ),
    )
    op.add_column("users", sa.Column("password_changed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.drop_column("users", "password_changed_at")
    op.drop_column("users", "password_hash")
