"""governed calls: action_invocations, automation and space action modes, space settings

Every capability call becomes an `action_invocations` row (indexed for the audit listing, the pending
inbox, the expiry sweep and the run's detail). Automations and spaces gain an `action_modes` map (the
first two levels of the permission cascade) and spaces a `settings` object (approval TTL, self-approval).

Revision ID: d3a1f6c28e57
Revises: e3a91c5d7f20
Create Date: 2026-11-23 13:30:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "d3a1f6c28e57"
down_revision: str | None = "e3a91c5d7f20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_STATUSES = ("pending", "approved", "executing", "executed", "denied", "expired", "failed", "suppressed")
_REASONS = ("policy", "human", "expired", "grant", "rate_limit", "pending_cap")


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def upgrade() -> None:
    jsonb = postgresql.JSONB(astext_type=sa.Text())
    op.add_column(
        "automations",
        sa.Column(
            "action_modes",
            jsonb,
            server_default="{}",
            nullable=False,
            comment="Permission overrides: capability id or pattern → mode.",
        ),
    )
    op.add_column(
        "spaces",
        sa.Column(
            "action_modes",
            jsonb,
            server_default="{}",
            nullable=False,
            comment="Space default modes: capability id or pattern → mode.",
        ),
    )
    op.add_column(
        "spaces",
        sa.Column(
            "settings",
            jsonb,
            server_default="{}",
            nullable=False,
            comment="approval_ttl_seconds, forbid_self_approval.",
        ),
    )
    op.create_table(
        "action_invocations",
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("automation_id", sa.Uuid(), nullable=False),
        sa.Column("run_id", sa.Uuid(), nullable=False),
        sa.Column("step_id", sa.String(length=64), nullable=False),
        sa.Column(
            "call_key", sa.String(length=200), nullable=False, comment="run/step/attempt/index of the call."
        ),
        sa.Column("capability", sa.String(length=100), nullable=False),
        sa.Column("tier", sa.String(length=16), nullable=False),
        sa.Column("risk", sa.String(length=8), nullable=False),
        sa.Column("destructive", sa.Boolean(), nullable=False),
        sa.Column("chosen_by", sa.String(length=16), nullable=False, comment="definition or agent"),
        sa.Column("mode", sa.String(length=32), nullable=False),
        sa.Column("mode_source", sa.String(length=32), nullable=False),
        sa.Column("params", jsonb, nullable=True, comment="Redacted; secrets as references."),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("result", jsonb, nullable=True, comment="Redacted, at most 10 KB, cut structurally."),
        sa.Column("error", jsonb, nullable=True),
        sa.Column("denied_reason", sa.String(length=16), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        sa.Column(
            "fence", sa.Integer(), nullable=True, comment="The run attempt that took the approved call."
        ),
        sa.Column("decided_by", sa.Uuid(), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("decision_scope", sa.String(length=16), nullable=True),
        sa.Column("decision_note", sa.Text(), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.CheckConstraint(_one_of("status", _STATUSES), name=op.f("ck_action_invocations_status")),
        sa.CheckConstraint(
            f"denied_reason IS NULL OR {_one_of('denied_reason', _REASONS)}",
            name=op.f("ck_action_invocations_reason"),
        ),
        sa.ForeignKeyConstraint(
            ["automation_id"],
            ["automations.id"],
            name=op.f("fk_action_invocations_automation_id_automations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["decided_by"],
            ["users.id"],
            name=op.f("fk_action_invocations_decided_by_users"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_action_invocations_run_id_runs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["space_id"],
            ["spaces.id"],
            name=op.f("fk_action_invocations_space_id_spaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_action_invocations")),
    )
    op.create_index(
        "ix_action_invocations_space_created", "action_invocations", ["space_id", "created_at", "id"]
    )
    op.create_index(
        "ix_action_invocations_pending",
        "action_invocations",
        ["space_id", "created_at", "id"],
        postgresql_where=sa.text("status = 'pending'"),
    )
    op.create_index(
        "ix_action_invocations_expiry",
        "action_invocations",
        ["expires_at"],
        postgresql_where=sa.text("status = 'pending'"),
    )
    op.create_index("ix_action_invocations_run", "action_invocations", ["run_id", "created_at"])


def downgrade() -> None:
    op.drop_table("action_invocations")
    op.drop_column("spaces", "settings")
    op.drop_column("spaces", "action_modes")
    op.drop_column("automations", "action_modes")
