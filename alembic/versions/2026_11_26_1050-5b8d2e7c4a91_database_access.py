"""databases.access: `read` (the default) or `write`, what an admin accepted of the DSN's role

A registered database's role is checked at registration and before each claim's first query; one that
can change data is refused unless the registration says `write`, which makes its queries write calls.
Existing registrations are `read`: their role is checked from their next run on.

Revision ID: 5b8d2e7c4a91
Revises: 9e4b7a2c6d15
Create Date: 2026-11-26 10:50:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "5b8d2e7c4a91"
down_revision: str | None = "9e4b7a2c6d15"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COMMENT = (
    "read: queries run read-only and the role may change nothing; write: an admin accepted a role "
    "that writes, and each query is a write call."
)


def upgrade() -> None:
    op.add_column(
        "databases",
        sa.Column("access", sa.String(8), server_default="read", nullable=False, comment=COMMENT),
    )
    op.create_check_constraint(op.f("ck_databases_access"), "databases", "access IN ('read', 'write')")


def downgrade() -> None:
    op.drop_constraint(op.f("ck_databases_access"), "databases", type_="check")
    op.drop_column("databases", "access")
