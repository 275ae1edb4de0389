"""mcp exposure and token scopes: automations offered as MCP tools, tokens limited to a purpose

`automations.mcp_tool_name` mirrors the definition's `expose.mcp.tool_name` (null when not exposed); a
partial unique index keeps tool names unique per space. `api_tokens.scopes` is null for a token with
full access, or names what the token may do (e.g. `{"mcp": {"automations": [ids]}}`).

Revision ID: d32a6c1e9f40
Revises: c29a4e1b7d05
Create Date: 2026-11-28 01:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "d32a6c1e9f40"
down_revision: str | None = "c29a4e1b7d05"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "automations",
        sa.Column(
            "mcp_tool_name",
            sa.String(length=64),
            nullable=True,
            comment="The MCP tool name it is exposed as (expose.mcp.tool_name); null when not exposed.",
        ),
    )
    op.create_index(
        "uq_automations_space_mcp_tool_name",
        "automations",
        ["space_id", "mcp_tool_name"],
        unique=True,
        postgresql_where=sa.text("mcp_tool_name IS NOT NULL"),
    )
    op.add_column(
        "api_tokens",
        sa.Column(
            "scopes",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=True,
            comment="Null: full access. Otherwise only what it names, e.g. {'mcp': {'automations': [ids]}}.",
        ),
    )


def downgrade() -> None:
    op.drop_column("api_tokens", "scopes")
    op.drop_index("uq_automations_space_mcp_tool_name", table_name="automations")
    op.drop_column("automations", "mcp_tool_name")
