"""mcp_connections.oauth_started_by: who started the OAuth authorization in progress

Only the user who started an authorization can complete it.

Revision ID: 5b8e2d7f4c19
Revises: 9e4b7a2c6d15
Create Date: 2026-11-26 10:30:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "5b8e2d7f4c19"
down_revision: str | None = "9e4b7a2c6d15"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "mcp_connections",
        sa.Column(
            "oauth_started_by",
            sa.Uuid(),
            sa.ForeignKey("users.id", name="fk_mcp_connections_oauth_started_by_users", ondelete="SET NULL"),
            nullable=True,
            comment="The user who started the authorization in progress; only they may complete it.",
        ),
    )


def downgrade() -> None:
    op.drop_column("mcp_connections", "oauth_started_by")
