"""secrets

Revision ID: 68787df6903c
Revises: 8113ccd15594
Create Date: 2026-11-23 09:17:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "68787df6903c"
down_revision: str | None = "8113ccd15594"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "secrets",
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("description", sa.String(length=500), nullable=True),
        sa.Column("ciphertext", sa.LargeBinary(), nullable=False),
        sa.Column(
            "key_id",
            sa.String(length=16),
            nullable=False,
            comment="Id of the key that sealed the ciphertext.",
        ),
        sa.Column("created_by", sa.Uuid(), nullable=True),
        sa.Column("updated_by", sa.Uuid(), nullable=True),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_secrets_space_id_spaces"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_secrets_created_by_users"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["updated_by"], ["users.id"], name=op.f("fk_secrets_updated_by_users"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_secrets")),
    )
    op.create_index("uq_secrets_space_id_name", "secrets", ["space_id", "name"], unique=True)
    op.create_index("ix_secrets_key_id", "secrets", ["key_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_secrets_key_id", table_name="secrets")
    op.drop_index("uq_secrets_space_id_name", table_name="secrets")
    op.drop_table("secrets")
