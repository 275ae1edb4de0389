"""mcp connections and tools

Revision ID: 3f9a6c2e8d17
Revises: d3a1f6c28e57
Create Date: 2026-11-23 13:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "3f9a6c2e8d17"
down_revision: str | None = "d3a1f6c28e57"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "mcp_connections",
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("transport", sa.String(length=8), nullable=False),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column(
            "stdio_server",
            sa.String(length=100),
            nullable=True,
            comment="Name of an operator-declared stdio server (AUTOMATIONS_MCP_STDIO_SERVERS).",
        ),
        sa.Column("tool_prefix", sa.String(length=40), nullable=False),
        sa.Column("auth_type", sa.String(length=8), nullable=False),
        sa.Column(
            "auth_secret", sa.String(length=64), nullable=True, comment="Vault secret name (bearer, header)."
        ),
        sa.Column("auth_header", sa.String(length=100), nullable=True),
        sa.Column(
            "oauth_ciphertext",
            sa.LargeBinary(),
            nullable=True,
            comment="Sealed OAuth state: registered client, tokens, discovered metadata.",
        ),
        sa.Column(
            "oauth_state_hash",
            sa.String(length=64),
            nullable=True,
            comment="SHA-256 of the state of an authorization in progress (the callback's key).",
        ),
        sa.Column("oauth_started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("needs_authorization", sa.Boolean(), nullable=False),
        sa.Column("harvest_status", sa.String(length=8), nullable=False),
        sa.Column("harvest_error", sa.Text(), nullable=True),
        sa.Column(
            "harvest_notice",
            sa.Text(),
            nullable=True,
            comment="What the last good harvest left out (tools past the cap, clashing names).",
        ),
        sa.Column("harvest_requested_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_harvested_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("tool_count", sa.Integer(), nullable=False),
        sa.Column(
            "tools_truncated",
            sa.Boolean(),
            nullable=False,
            comment="The server listed more tools than the per-connection cap.",
        ),
        sa.Column("created_by", sa.Uuid(), nullable=True),
        *_timestamps(),
        sa.CheckConstraint("transport IN ('http', 'stdio')", name=op.f("ck_mcp_connections_transport")),
        sa.CheckConstraint(
            "auth_type IN ('none', 'bearer', 'header', 'oauth')", name=op.f("ck_mcp_connections_auth_type")
        ),
        sa.CheckConstraint(
            "harvest_status IN ('pending', 'ok', 'error')", name=op.f("ck_mcp_connections_harvest_status")
        ),
        sa.CheckConstraint(
            "(transport = 'http' AND url IS NOT NULL AND stdio_server IS NULL)"
            " OR (transport = 'stdio' AND url IS NULL AND stdio_server IS NOT NULL)",
            name=op.f("ck_mcp_connections_endpoint"),
        ),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_mcp_connections_space_id_spaces"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["users.id"],
            name=op.f("fk_mcp_connections_created_by_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mcp_connections")),
    )
    op.create_index("uq_mcp_connections_space_id_name", "mcp_connections", ["space_id", "name"], unique=True)
    op.create_index(
        "uq_mcp_connections_space_id_tool_prefix", "mcp_connections", ["space_id", "tool_prefix"], unique=True
    )
    op.create_index("ix_mcp_connections_last_harvested_at", "mcp_connections", ["last_harvested_at"])
    op.create_index(
        "uq_mcp_connections_oauth_state_hash", "mcp_connections", ["oauth_state_hash"], unique=True
    )

    op.create_table(
        "mcp_tools",
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("connection_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False, comment="The tool's name on its server."),
        sa.Column("capability_id", sa.String(length=100), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("input_schema", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("output_schema", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("annotations", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column(
            "risk_hint",
            sa.String(length=8),
            nullable=False,
            comment="read only for an explicit readOnlyHint: true.",
        ),
        sa.Column("risk_override", sa.String(length=8), nullable=True, comment="An admin's choice; wins."),
        sa.Column("destructive", sa.Boolean(), nullable=False),
        sa.Column("schema_hash", sa.String(length=64), nullable=False),
        sa.Column(
            "confirmed_hash", sa.String(length=64), nullable=False, comment="The hash an admin last accepted."
        ),
        sa.Column("drifted", sa.Boolean(), nullable=False),
        sa.Column("previous_hash", sa.String(length=64), nullable=True),
        sa.Column("drifted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("removed", sa.Boolean(), nullable=False),
        sa.Column("removed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("unusable_reason", sa.Text(), nullable=True),
        *_timestamps(),
        sa.CheckConstraint("risk_hint IN ('read', 'write')", name=op.f("ck_mcp_tools_risk_hint")),
        sa.CheckConstraint(
            "risk_override IS NULL OR risk_override IN ('read', 'write')",
            name=op.f("ck_mcp_tools_risk_override"),
        ),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_mcp_tools_space_id_spaces"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["connection_id"],
            ["mcp_connections.id"],
            name=op.f("fk_mcp_tools_connection_id_mcp_connections"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mcp_tools")),
    )
    op.create_index("uq_mcp_tools_connection_id_name", "mcp_tools", ["connection_id", "name"], unique=True)
    op.create_index("ix_mcp_tools_space_id_capability_id", "mcp_tools", ["space_id", "capability_id"])


def downgrade() -> None:
    op.drop_index("ix_mcp_tools_space_id_capability_id", table_name="mcp_tools")
    op.drop_index("uq_mcp_tools_connection_id_name", table_name="mcp_tools")
    op.drop_table("mcp_tools")
    op.drop_index("uq_mcp_connections_oauth_state_hash", table_name="mcp_connections")
    op.drop_index("ix_mcp_connections_last_harvested_at", table_name="mcp_connections")
    op.drop_index("uq_mcp_connections_space_id_tool_prefix", table_name="mcp_connections")
    op.drop_index("uq_mcp_connections_space_id_name", table_name="mcp_connections")
    op.drop_table("mcp_connections")
