"""secrets.hosts: the hosts a secret's value may be sent to

Each secret may be bound to a list of host patterns (`api.example.com`, `*.example.com`, an address);
the capability pipeline and the egress transport refuse to send its value anywhere else. Empty means
any host the egress guard lets through, which is what every existing secret keeps.

Revision ID: 5b8e2d4a9c31
Revises: 5b8d2e7c4a91
Create Date: 2026-11-26 10:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "5b8e2d4a9c31"
down_revision: str | None = "5b8d2e7c4a91"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "secrets",
        sa.Column(
            "hosts",
            postgresql.JSONB(),
            nullable=False,
            server_default=sa.text("'[]'::jsonb"),
            comment="Host patterns the value may be sent to; empty: any host egress allows.",
        ),
    )


def downgrade() -> None:
    op.drop_column("secrets", "hosts")
