"""runs steps events notifications

Revision ID: c7db2001dc20
Revises: 8266d261b618
Create Date: 2026-11-22 04:01:53.645323+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "c7db2001dc20"
down_revision: str | None = "8266d261b618"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "domain_events",
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("event_type", sa.String(length=200), nullable=False),
        sa.Column("source_id", sa.String(length=255), nullable=True),
        sa.Column("payload", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("chain_depth", sa.Integer(), nullable=False),
        sa.Column("consumed_by", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("dispatched_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_domain_events_space_id_spaces"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_domain_events")),
    )
    op.create_index(
        "ix_domain_events_space_created", "domain_events", ["space_id", "created_at"], unique=False
    )
    op.create_index(
        "ix_domain_events_undispatched",
        "domain_events",
        ["created_at"],
        unique=False,
        postgresql_where=sa.text("dispatched_at IS NULL"),
    )
    op.create_table(
        "runs",
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("automation_id", sa.Uuid(), nullable=False),
        sa.Column("automation_version", sa.Integer(), nullable=False),
        sa.Column(
            "definition",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=False,
            comment="Snapshot the run executes.",
        ),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column(
            "reason", sa.Text(), nullable=True, comment="Why it was dropped, queued, failed or cancelled."
        ),
        sa.Column("queue", sa.String(length=32), nullable=False),
        sa.Column("trigger_type", sa.String(length=16), nullable=False),
        sa.Column("trigger_id", sa.Uuid(), nullable=True),
        sa.Column("trigger_payload", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("inputs", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("idempotency_key", sa.String(length=255), nullable=True),
        sa.Column("request_hash", sa.String(length=64), nullable=True),
        sa.Column("chain_depth", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.Uuid(), nullable=True),
        sa.Column("attempt", sa.Integer(), nullable=False, comment="Claims so far; the fencing token."),
        sa.Column("claimed_by", sa.String(length=255), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "retry_at",
            sa.DateTime(timezone=True),
            nullable=True,
            comment="A pending run waits for its backoff until then.",
        ),
        sa.Column("enqueued_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("output", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("error", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("failed_step_id", sa.String(length=64), nullable=True),
        sa.Column("cost_usd", sa.Numeric(precision=12, scale=6), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.CheckConstraint(
            "status IN ('queued', 'pending', 'running', 'succeeded', 'failed', 'cancelled', 'timed_out',"
            " 'dropped')",
            name=op.f("ck_runs_status"),
        ),
        sa.ForeignKeyConstraint(
            ["automation_id"],
            ["automations.id"],
            name=op.f("fk_runs_automation_id_automations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_runs_created_by_users"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_runs_space_id_spaces"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
    )
    op.create_index("ix_runs_automation_status", "runs", ["automation_id", "status"], unique=False)
    op.create_index(
        "ix_runs_live",
        "runs",
        ["status", "lease_expires_at"],
        unique=False,
        postgresql_where=sa.text("status IN ('pending', 'running')"),
    )
    op.create_index(
        "ix_runs_queued", "runs", ["created_at"], unique=False, postgresql_where=sa.text("status = 'queued'")
    )
    op.create_index("ix_runs_space_created", "runs", ["space_id", "created_at", "id"], unique=False)
    op.create_index(
        "uq_runs_idempotency",
        "runs",
        ["automation_id", "idempotency_key"],
        unique=True,
        postgresql_where=sa.text("idempotency_key IS NOT NULL"),
    )
    op.create_table(
        "notifications",
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("run_id", sa.Uuid(), nullable=True),
        sa.Column("level", sa.String(length=16), nullable=False),
        sa.Column("title", sa.String(length=300), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("read_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_notifications_run_id_runs"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_notifications_space_id_spaces"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notifications")),
    )
    op.create_index(
        "ix_notifications_space_created", "notifications", ["space_id", "created_at", "id"], unique=False
    )
    op.create_table(
        "run_steps",
        sa.Column("run_id", sa.Uuid(), nullable=False),
        sa.Column("phase", sa.String(length=16), nullable=False, comment="plan or on_failure"),
        sa.Column("step_index", sa.Integer(), nullable=False),
        sa.Column("step_id", sa.String(length=64), nullable=False),
        sa.Column("action", sa.String(length=100), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column(
            "config",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=True,
            comment="Rendered config, redacted.",
        ),
        sa.Column(
            "output",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=True,
            comment="For display: redacted, at most 10 KB.",
        ),
        sa.Column(
            "output_full",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=True,
            comment="For later steps and resume, at most 1 MB.",
        ),
        sa.Column("error", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.CheckConstraint(
            "status IN ('running', 'succeeded', 'failed', 'skipped')", name=op.f("ck_run_steps_status")
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_run_steps_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_run_steps")),
    )
    op.create_index(
        "uq_run_steps_attempt", "run_steps", ["run_id", "phase", "step_index", "attempt"], unique=True
    )


def downgrade() -> None:
    op.drop_index("uq_run_steps_attempt", table_name="run_steps")
    op.drop_table("run_steps")
    op.drop_index("ix_notifications_space_created", table_name="notifications")
    op.drop_table("notifications")
    op.drop_index(
        "uq_runs_idempotency", table_name="runs", postgresql_where=sa.text("idempotency_key IS NOT NULL")
    )
    op.drop_index("ix_runs_space_created", table_name="runs")
    op.drop_index("ix_runs_queued", table_name="runs", postgresql_where=sa.text("status = 'queued'"))
    op.drop_index(
        "ix_runs_live", table_name="runs", postgresql_where=sa.text("status IN ('pending', 'running')")
    )
    op.drop_index("ix_runs_automation_status", table_name="runs")
    op.drop_table("runs")
    op.drop_index(
        "ix_domain_events_undispatched",
        table_name="domain_events",
        postgresql_where=sa.text("dispatched_at IS NULL"),
    )
    op.drop_index("ix_domain_events_space_created", table_name="domain_events")
    op.drop_table("domain_events")
