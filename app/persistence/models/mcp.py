"""MCP connections of a space and the tools harvested from them (each one a capability of the space)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.persistence.base import Base, IdMixin, TimestampMixin

TRANSPORTS = ("http", "stdio")
AUTH_TYPES = ("none", "bearer", "header", "oauth")
HARVEST_STATUSES = ("pending", "ok", "error")
RISKS = ("read", "write")


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(value) for value in values)})"


class McpConnection(IdMixin, TimestampMixin, Base):
    """One MCP server a space connected: where it is, how to authenticate, and how its last harvest went.

    Credentials are never stored here in clear: bearer and header auth name a secret of the vault;
    OAuth tokens (and the registered client) are sealed in `oauth_ciphertext` for this connection.
    """

    __tablename__ = "mcp_connections"
    __table_args__ = (
        Index("uq_mcp_connections_space_id_name", "space_id", "name", unique=True),
        Index("uq_mcp_connections_space_id_tool_prefix", "space_id", "tool_prefix", unique=True),
        Index("ix_mcp_connections_last_harvested_at", "last_harvested_at"),
        Index("uq_mcp_connections_oauth_state_hash", "oauth_state_hash", unique=True),
        CheckConstraint(_one_of("transport", TRANSPORTS), name="transport"),
        CheckConstraint(_one_of("auth_type", AUTH_TYPES), name="auth_type"),
        CheckConstraint(_one_of("harvest_status", HARVEST_STATUSES), name="harvest_status"),
        CheckConstraint(
            "(transport = 'http' AND url IS NOT NULL AND stdio_server IS NULL)"
            " OR (transport = 'stdio' AND url IS NULL AND stdio_server IS NOT NULL)",
            name="endpoint",
        ),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(100))
    transport: Mapped[str] = mapped_column(String(8))
    url: Mapped[str | None] = mapped_column(Text)
    stdio_server: Mapped[str | None] = mapped_column(
        String(100), comment="Name of an operator-declared stdio server (AUTOMATIONS_MCP_STDIO_SERVERS)."
    )
    tool_prefix: Mapped[str] = mapped_column(String(40))
    auth_type: Mapped[str] = mapped_column(String(8), default="none")
    auth_secret: Mapped[str | None] = mapped_column(String(64), comment="Vault secret name (bearer, header).")
    auth_header: Mapped[str | None] = mapped_column(String(100))
    oauth_ciphertext: Mapped[bytes | None] = mapped_column(
        LargeBinary, comment="Sealed OAuth state: registered client, tokens, discovered metadata."
    )
    oauth_state_hash: Mapped[str | None] = mapped_column(
        String(64), comment="SHA-256 of the state of an authorization in progress (the callback's key)."
    )
    oauth_started_at: Mapped[datetime | None]
    oauth_started_by: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"),
        comment="The user who started the authorization in progress; only they may complete it.",
    )
    needs_authorization: Mapped[bool] = mapped_column(default=False)
    harvest_status: Mapped[str] = mapped_column(String(8), default="pending")
    harvest_error: Mapped[str | None] = mapped_column(Text)
    harvest_notice: Mapped[str | None] = mapped_column(
        Text, comment="What the last good harvest left out (tools past the cap, clashing names)."
    )
    harvest_requested_at: Mapped[datetime | None]
    last_harvested_at: Mapped[datetime | None]
    tool_count: Mapped[int] = mapped_column(Integer, default=0)
    tools_truncated: Mapped[bool] = mapped_column(
        default=False, comment="The server listed more tools than the per-connection cap."
    )
    created_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class McpTool(IdMixin, TimestampMixin, Base):
    """One tool of a connection as last harvested: schemas, annotations, risk, and drift since confirmed."""

    __tablename__ = "mcp_tools"
    __table_args__ = (
        Index("uq_mcp_tools_connection_id_name", "connection_id", "name", unique=True),
        Index("ix_mcp_tools_space_id_capability_id", "space_id", "capability_id"),
        CheckConstraint(_one_of("risk_hint", RISKS), name="risk_hint"),
        CheckConstraint(f"risk_override IS NULL OR {_one_of('risk_override', RISKS)}", name="risk_override"),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    connection_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("mcp_connections.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200), comment="The tool's name on its server.")
    capability_id: Mapped[str] = mapped_column(String(100))
    description: Mapped[str] = mapped_column(Text, default="")
    input_schema: Mapped[dict[str, Any]] = mapped_column(JSONB)
    output_schema: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    annotations: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    risk_hint: Mapped[str] = mapped_column(String(8), comment="read only for an explicit readOnlyHint: true.")
    risk_override: Mapped[str | None] = mapped_column(String(8), comment="An admin's choice; wins.")
    destructive: Mapped[bool] = mapped_column(default=False)
    schema_hash: Mapped[str] = mapped_column(String(64))
    confirmed_hash: Mapped[str] = mapped_column(String(64), comment="The hash an admin last accepted.")
    drifted: Mapped[bool] = mapped_column(default=False)
    previous_hash: Mapped[str | None] = mapped_column(String(64))
    drifted_at: Mapped[datetime | None]
    removed: Mapped[bool] = mapped_column(default=False)
    removed_at: Mapped[datetime | None]
    unusable_reason: Mapped[str | None] = mapped_column(Text)

    @property
    def risk(self) -> str:
        """The risk in force: the admin's override, else the server's hint."""
        return self.risk_override or self.risk_hint
