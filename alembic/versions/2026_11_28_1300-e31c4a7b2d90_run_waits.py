"""runs: the waiting status, parent and child runs; run_waits

A run can wait durably (a time, an event, a child run's end) holding no worker: `waiting` joins the
status CHECK, and `run_waits` keeps one row per waiting step (unique per run and step path). The due-time
tick reads only open rows that are due (partial index on `due_at`), event matching only the open event
waits of the event's space and type. A run started by a `call_automation` step knows its parent and
depth; `wake_requested` keeps a wake-up that came while the run was still running.

Revision ID: e31c4a7b2d90
Revises: d36a1f2c9e40
Create Date: 2026-11-28 13:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "e31c4a7b2d90"
down_revision: str | None = "d36a1f2c9e40"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BEFORE = (
    "queued",
    "pending",
    "running",
    "awaiting_approval",
    "succeeded",
    "failed",
    "cancelled",
    "timed_out",
    "dropped",
)
_AFTER = (*_BEFORE[:4], "waiting", *_BEFORE[4:])


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def upgrade() -> None:
    op.drop_constraint(op.f("ck_runs_status"), "runs", type_="check")
    op.create_check_constraint(op.f("ck_runs_status"), "runs", _one_of("status", _AFTER))
    op.add_column(
        "runs",
        sa.Column(
            "parent_run_id",
            sa.Uuid(),
            nullable=True,
            comment="The run whose call_automation step started it.",
        ),
    )
    op.create_foreign_key(
        "fk_runs_parent_run_id_runs", "runs", "runs", ["parent_run_id"], ["id"], ondelete="SET NULL"
    )
    op.add_column(
        "runs",
        sa.Column("parent_path", sa.Text(), nullable=True, comment="The parent's step path that started it."),
    )
    op.add_column(
        "runs",
        sa.Column(
            "depth",
            sa.Integer(),
            server_default="0",
            nullable=False,
            comment="0 for a top run; a child is its parent's + 1.",
        ),
    )
    op.add_column(
        "runs",
        sa.Column(
            "wake_requested",
            sa.Boolean(),
            server_default="false",
            nullable=False,
            comment="A wake-up came while the run was not waiting; its claim's wait goes to pending instead.",
        ),
    )
    op.add_column(
        "runs",
        sa.Column(
            "children_cost_usd",
            sa.Numeric(12, 6),
            server_default="0",
            nullable=False,
            comment="LLM spend of its finished child runs (and theirs): counted against its budget, "
            "kept apart from its own cost so totals never count it twice.",
        ),
    )
    op.add_column(
        "runs",
        sa.Column(
            "children_llm_tokens",
            sa.Integer(),
            server_default="0",
            nullable=False,
            comment="LLM tokens of its finished child runs (and theirs), counted against its token cap.",
        ),
    )
    op.create_index(
        "ix_runs_parent", "runs", ["parent_run_id"], postgresql_where=sa.text("parent_run_id IS NOT NULL")
    )
    op.create_index(
        "ix_runs_waiting", "runs", ["status_changed_at"], postgresql_where=sa.text("status = 'waiting'")
    )
    op.create_table(
        "run_waits",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("run_id", sa.Uuid(), nullable=False),
        sa.Column("path", sa.Text(), nullable=False, comment="The waiting step's path in the plan."),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("event_type", sa.String(length=200), nullable=True),
        sa.Column(
            "filter",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=True,
            comment="The rendered event filter.",
        ),
        sa.Column(
            "due_at",
            sa.DateTime(timezone=True),
            nullable=True,
            comment="When the time is up (a timeout for events).",
        ),
        sa.Column("child_run_id", sa.Uuid(), nullable=True),
        sa.Column("satisfied_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "outcome",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=True,
            comment="The matched event's payload, {timed_out: true}, {due: true} or the child's result.",
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.CheckConstraint("kind IN ('time', 'event', 'child')", name=op.f("ck_run_waits_kind")),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name="fk_run_waits_space_id_spaces", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name="fk_run_waits_run_id_runs", ondelete="CASCADE"),
        sa.ForeignKeyConstraint(
            ["child_run_id"], ["runs.id"], name="fk_run_waits_child_run_id_runs", ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_run_waits"),
    )
    op.create_index("uq_run_waits_path", "run_waits", ["run_id", "path"], unique=True)
    op.create_index(
        "ix_run_waits_due", "run_waits", ["due_at"], postgresql_where=sa.text("satisfied_at IS NULL")
    )
    op.create_index(
        "ix_run_waits_event",
        "run_waits",
        ["space_id", "event_type"],
        postgresql_where=sa.text("kind = 'event' AND satisfied_at IS NULL"),
    )
    op.create_index(
        "ix_run_waits_child",
        "run_waits",
        ["child_run_id"],
        postgresql_where=sa.text("child_run_id IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_table("run_waits")
    op.drop_index("ix_runs_waiting", table_name="runs")
    op.drop_index("ix_runs_parent", table_name="runs")
    op.drop_column("runs", "children_llm_tokens")
    op.drop_column("runs", "children_cost_usd")
    op.drop_column("runs", "wake_requested")
    op.drop_column("runs", "depth")
    op.drop_column("runs", "parent_path")
    op.drop_constraint("fk_runs_parent_run_id_runs", "runs", type_="foreignkey")
    op.drop_column("runs", "parent_run_id")
    op.execute("UPDATE runs SET status = 'cancelled' WHERE status = 'waiting'")
    op.drop_constraint(op.f("ck_runs_status"), "runs", type_="check")
    op.create_check_constraint(op.f("ck_runs_status"), "runs", _one_of("status", _BEFORE))
