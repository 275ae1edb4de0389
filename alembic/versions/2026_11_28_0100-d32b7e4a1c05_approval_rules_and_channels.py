"""Approvals by rule, by several people, and over Slack and email

- `action_invocations.mode_rule`: the mode rule (`{level, index}`) that decided a call, when one did.
- `action_invocations.required_approvals`: how many distinct members must approve a paused call.
- `approval_decisions`: each member's decision on a call (approve or deny, through the API, Slack or
  an email link); one per member and call.
- `approval_links`: single-use email links to decide a call, bound to one approver (token hashed).
- `policy_changes.kind` also records changes of the Slack and email approval settings.
- `approval_notices`: Slack messages, their updates and emails about approvals, sent after commit and
  retried from the rows.

Revision ID: d32b7e4a1c05
Revises: d32a6c1e9f40
Create Date: 2026-11-28 01:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "d32b7e4a1c05"
down_revision: str | None = "d32a6c1e9f40"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_KINDS = (
    "'space_modes', 'automation_modes', 'approval_settings', 'approval_grant_added', 'approval_grant_revoked'"
)
KINDS = OLD_KINDS + ", 'slack_approvals', 'email_approvals'"


def _fk(table: str, column: str, target: str, ondelete: str = "CASCADE") -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.id"], name=f"fk_{table}_{column}_{target}", ondelete=ondelete
    )


def upgrade() -> None:
    op.drop_constraint("ck_policy_changes_kind", "policy_changes", type_="check")
    op.create_check_constraint("ck_policy_changes_kind", "policy_changes", f"kind IN ({KINDS})")
    op.add_column(
        "action_invocations",
        sa.Column(
            "mode_rule",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=True,
            comment="The mode rule that decided ({level, index}), when one did.",
        ),
    )
    op.add_column(
        "action_invocations",
        sa.Column(
            "required_approvals",
            sa.Integer(),
            server_default="1",
            nullable=False,
            comment="Distinct members who must approve.",
        ),
    )
    op.create_table(
        "approval_decisions",
        sa.Column("invocation_id", sa.Uuid(), nullable=False),
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("decision", sa.String(length=8), nullable=False),
        sa.Column("via", sa.String(length=8), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.CheckConstraint("decision IN ('approve', 'deny')", name="ck_approval_decisions_decision"),
        sa.CheckConstraint("via IN ('api', 'slack', 'email')", name="ck_approval_decisions_via"),
        _fk("approval_decisions", "invocation_id", "action_invocations"),
        _fk("approval_decisions", "space_id", "spaces"),
        _fk("approval_decisions", "user_id", "users"),
        sa.PrimaryKeyConstraint("id", name="pk_approval_decisions"),
        sa.UniqueConstraint("invocation_id", "user_id", name="uq_approval_decisions_invocation_user"),
    )
    op.create_table(
        "approval_links",
        sa.Column("invocation_id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False, comment="SHA-256 of the link's token."),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        _fk("approval_links", "invocation_id", "action_invocations"),
        _fk("approval_links", "user_id", "users"),
        sa.PrimaryKeyConstraint("id", name="pk_approval_links"),
        sa.UniqueConstraint("token_hash", name="uq_approval_links_token_hash"),
    )
    op.create_index("ix_approval_links_invocation", "approval_links", ["invocation_id"])
    op.create_table(
        "approval_notices",
        sa.Column("invocation_id", sa.Uuid(), nullable=False),
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=True, comment="The approver an email goes to."),
        sa.Column(
            "payload",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.Column("status", sa.String(length=8), server_default="pending", nullable=False),
        sa.Column("attempts", sa.Integer(), server_default="0", nullable=False),
        sa.Column(
            "next_attempt_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False
        ),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column(
            "external_ref",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=True,
            comment="Where the notice landed (Slack channel and ts).",
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.CheckConstraint(
            "kind IN ('slack_post', 'slack_update', 'email')", name="ck_approval_notices_kind"
        ),
        sa.CheckConstraint("status IN ('pending', 'sent', 'failed')", name="ck_approval_notices_status"),
        _fk("approval_notices", "invocation_id", "action_invocations"),
        _fk("approval_notices", "space_id", "spaces"),
        _fk("approval_notices", "user_id", "users"),
        sa.PrimaryKeyConstraint("id", name="pk_approval_notices"),
    )
    op.create_index(
        "ix_approval_notices_due",
        "approval_notices",
        ["next_attempt_at"],
        postgresql_where=sa.text("status = 'pending'"),
    )
    op.create_index("ix_approval_notices_invocation", "approval_notices", ["invocation_id"])


def downgrade() -> None:
    op.drop_table("approval_notices")
    op.drop_table("approval_links")
    op.drop_table("approval_decisions")
    op.drop_column("action_invocations", "required_approvals")
    op.drop_column("action_invocations", "mode_rule")
    op.execute("DELETE FROM policy_changes WHERE kind IN ('slack_approvals', 'email_approvals')")
    op.drop_constraint("ck_policy_changes_kind", "policy_changes", type_="check")
    op.create_check_constraint("ck_policy_changes_kind", "policy_changes", f"kind IN ({OLD_KINDS})")
