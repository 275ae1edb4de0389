"""token lifetimes and invitations: every API token but a service token expires; invitations

Revision ID: 5b8e2d4f7a31
Revises: 5b8e2d4a9c31
Create Date: 2026-11-26 10:20:00.000000+00:00

Tokens that exist at upgrade and have no expiry get one 90 days from the upgrade: none of them was
made as a service token (the kind did not exist), and an admin who needs one that never expires makes
it again, deliberately. Sign-in tokens are recognised by their name and marked as sessions.
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "5b8e2d4f7a31"
down_revision: str | None = "5b8e2d4a9c31"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("api_tokens", sa.Column("kind", sa.String(16), server_default="personal", nullable=False))
    op.execute("UPDATE api_tokens SET kind = 'session' WHERE name = 'Web sign-in'")
    op.execute("UPDATE api_tokens SET expires_at = now() + interval '90 days' WHERE expires_at IS NULL")
    op.create_check_constraint(
        op.f("ck_api_tokens_kind"), "api_tokens", "kind IN ('personal', 'session', 'service')"
    )
    op.create_check_constraint(
        op.f("ck_api_tokens_expiry"), "api_tokens", "expires_at IS NOT NULL OR kind = 'service'"
    )
    op.create_table(
        "invitations",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column(
            "space_id",
            sa.Uuid(),
            nullable=False,
            comment="The space whose admin made the user.",
        ),
        sa.Column("created_by", sa.Uuid(), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column(
            "used_at",
            sa.DateTime(timezone=True),
            nullable=True,
            comment="Accepted, or withdrawn by a renewal.",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_invitations_user_id_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_invitations_space_id_spaces"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_invitations_created_by_users"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_invitations")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_invitations_token_hash")),
    )
    op.create_index("ix_invitations_user_id", "invitations", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_invitations_user_id", table_name="invitations")
    op.drop_table("invitations")
    op.drop_constraint(op.f("ck_api_tokens_expiry"), "api_tokens", type_="check")
    op.drop_constraint(op.f("ck_api_tokens_kind"), "api_tokens", type_="check")
    op.drop_column("api_tokens", "kind")
