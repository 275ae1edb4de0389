"""plugin tasks and per-space plugin settings: what pollers and subscriptions ran, and their inputs

`plugin_tasks` holds one row per poller slot or per (subscription, event) in a space: its unique `key`
is the idempotency key that makes each run once however many beats or workers see it, and the row keeps
how it ended. `space_plugins.settings` is what a space configured for a plugin (validated against the
plugin's settings schema; never secrets).

Revision ID: c28e5a7d3b10
Revises: 5b8e2d4f7a31
Create Date: 2026-11-27 22:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "c28e5a7d3b10"
down_revision: str | None = "5b8e2d4f7a31"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "space_plugins",
        sa.Column(
            "settings",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
            comment="What the space configured for the plugin (its settings schema); shown in answers.",
        ),
    )
    op.add_column(
        "space_plugins",
        sa.Column(
            "enabled_at",
            sa.DateTime(timezone=True),
            nullable=True,
            comment="When it was last switched on: subscriptions hear the space's events from then.",
        ),
    )
    op.execute("UPDATE space_plugins SET enabled_at = updated_at WHERE enabled")
    op.create_table(
        "plugin_tasks",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("plugin_id", sa.String(100), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("key", sa.String(400), nullable=False, comment="Idempotency key: one row, one run."),
        sa.Column("event_id", sa.Uuid(), nullable=True, comment="The event a subscription was handed."),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("error", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("emitted", sa.Integer(), server_default="0", nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_plugin_tasks_space_id_spaces"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_plugin_tasks")),
        sa.UniqueConstraint("key", name=op.f("uq_plugin_tasks_key")),
        sa.CheckConstraint("kind IN ('poller', 'subscription')", name=op.f("ck_plugin_tasks_kind")),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'succeeded', 'failed', 'timed_out', 'skipped', 'lost')",
            name=op.f("ck_plugin_tasks_status"),
        ),
    )
    op.create_index("ix_plugin_tasks_space_plugin", "plugin_tasks", ["space_id", "plugin_id", "created_at"])
    op.create_index("ix_plugin_tasks_created", "plugin_tasks", ["created_at"])
    op.create_index(
        "ix_plugin_tasks_open",
        "plugin_tasks",
        ["created_at"],
        postgresql_where=sa.text("status IN ('queued', 'running')"),
    )


def downgrade() -> None:
    op.drop_index("ix_plugin_tasks_open", table_name="plugin_tasks")
    op.drop_index("ix_plugin_tasks_created", table_name="plugin_tasks")
    op.drop_index("ix_plugin_tasks_space_plugin", table_name="plugin_tasks")
    op.drop_table("plugin_tasks")
    op.drop_column("space_plugins", "enabled_at")
    op.drop_column("space_plugins", "settings")
