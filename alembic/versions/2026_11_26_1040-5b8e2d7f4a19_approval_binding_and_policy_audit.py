"""Approvals bound to the call: argument hash, target, standing grants with their origin, policy audit

- `action_invocations.params_hash`: SHA-256 of a paused call's full arguments (before redaction and the
  10 KB cut); an approval covers only a call whose arguments hash the same. Calls that paused before
  this revision have none and are covered by no approval: a resumed one fails `approval_params_changed`.
- `action_invocations.target`: the paused call's target (the method and URL of an HTTP request, the
  tool of an MCP call, …), which `scope: always` grants.
- `approval_grants`: `scope: always` as a row bound to automation, step, capability and target, with
  who granted it, when, from which approval and for which definition version; a call of the step with
  another target marks it lapsed. Earlier `always` decisions were written as `allow` overrides of the
  automation and stay so (visible and editable as overrides, recorded from now on).
- `policy_changes`: who changed a space's or an automation's modes, the approval settings, or a grant,
  when, and the value before and after.

Revision ID: 5b8e2d7f4a19
Revises: 5b8e2d7f4c19
Create Date: 2026-11-26 10:40:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "5b8e2d7f4a19"
down_revision: str | None = "5b8e2d7f4c19"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KINDS = (
    "'space_modes', 'automation_modes', 'approval_settings', 'approval_grant_added', 'approval_grant_revoked'"
)


def upgrade() -> None:
    op.add_column(
        "action_invocations",
        sa.Column(
            "params_hash",
            sa.String(length=64),
            nullable=True,
            comment="SHA-256 of the full arguments (before redaction) an approval covers.",
        ),
    )
    op.add_column(
        "action_invocations",
        sa.Column(
            "target",
            sa.Text(),
            nullable=True,
            comment="For a call that asked for approval: its target, which `always` grants.",
        ),
    )
    op.create_table(
        "approval_grants",
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("automation_id", sa.Uuid(), nullable=False),
        sa.Column("capability", sa.String(length=100), nullable=False),
        sa.Column("step_id", sa.String(length=64), nullable=False),
        sa.Column(
            "target", sa.Text(), nullable=False, comment="The approved call's target (per capability)."
        ),
        sa.Column(
            "definition_version", sa.Integer(), nullable=False, comment="The version the approved run ran."
        ),
        sa.Column("granted_by", sa.Uuid(), nullable=True),
        sa.Column("granted_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("invocation_id", sa.Uuid(), nullable=True, comment="The approval it came from."),
        sa.Column("lapsed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "lapsed_version",
            sa.Integer(),
            nullable=True,
            comment="The version whose call of the step had another target.",
        ),
        sa.Column("lapsed_target", sa.Text(), nullable=True, comment="That call's target."),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["automation_id"],
            ["automations.id"],
            name="fk_approval_grants_automation_id_automations",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["granted_by"], ["users.id"], name="fk_approval_grants_granted_by_users", ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["invocation_id"],
            ["action_invocations.id"],
            name="fk_approval_grants_invocation_id_action_invocations",
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name="fk_approval_grants_space_id_spaces", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_approval_grants"),
    )
    op.create_index(
        "ix_approval_grants_live",
        "approval_grants",
        ["automation_id", "capability", "step_id", "target"],
        unique=True,
        postgresql_where=sa.text("lapsed_at IS NULL"),
    )
    op.create_index(
        "ix_approval_grants_automation_granted", "approval_grants", ["automation_id", "granted_at"]
    )
    op.create_table(
        "policy_changes",
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("automation_id", sa.Uuid(), nullable=True, comment="None: a change of the space itself."),
        sa.Column("actor_id", sa.Uuid(), nullable=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("before", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("after", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.CheckConstraint(f"kind IN ({KINDS})", name="ck_policy_changes_kind"),
        sa.ForeignKeyConstraint(
            ["actor_id"], ["users.id"], name="fk_policy_changes_actor_id_users", ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["automation_id"],
            ["automations.id"],
            name="fk_policy_changes_automation_id_automations",
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name="fk_policy_changes_space_id_spaces", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_policy_changes"),
    )
    op.create_index("ix_policy_changes_space_created", "policy_changes", ["space_id", "created_at", "id"])


def downgrade() -> None:
    op.drop_index("ix_policy_changes_space_created", table_name="policy_changes")
    op.drop_table("policy_changes")
    op.drop_index("ix_approval_grants_automation_granted", table_name="approval_grants")
    op.drop_index("ix_approval_grants_live", table_name="approval_grants")
    op.drop_table("approval_grants")
    op.drop_column("action_invocations", "target")
    op.drop_column("action_invocations", "params_hash")
