"""The settings of what the service connects to: outbound webhooks and their deliveries, MCP servers,
the artifact store and the knowledge index; mixins `Settings` (app/config/__init__.py) combines."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, SecretStr, field_validator


class OutboundSettings(BaseModel):
    """Completion webhooks.

    Notices of finished runs to the endpoints of a space, and to the operator-wide one.
    """

    webhook_delivery_timeout_seconds: float = Field(
        default=15.0, gt=0, le=120, description="Time one delivery attempt may take, start to end."
    )
    webhook_retry_scale: float = Field(
        default=1.0,
        gt=0,
        le=1,
        description="Multiplies every delay of the retry schedule (1 in production; small in tests).",
    )
    webhook_url: str | None = Field(
        default=None,
        description=(
            "Operator-wide endpoint: receives the run events of every space (applied by `automations"
            " migrate`)."
        ),
    )
    webhook_secret: SecretStr | None = Field(
        default=None, description="Signing secret (whsec_…) of the operator-wide endpoint."
    )
    webhook_disable_after_failures: int = Field(
        default=50, ge=1, description="Consecutive failed deliveries that disable an endpoint."
    )


class DeliverySettings(BaseModel):
    """Delivery actions: Slack and email."""

    slack_api_url: str = Field(
        default="https://slack.com/api", description="Base URL of Slack's Web API, used by slack_post."
    )
    smtp_url: SecretStr | None = Field(
        default=None,
        description=(
            "smtp://user:password@host:587 or smtps://host:465, the relay of send_email (its host passes the"
            " egress guard); unset = send_email is unavailable. "
            "The user and password are only sent over TLS (smtps://, or STARTTLS, used whenever the relay "
            "offers it); a relay without STARTTLS fails with smtp_tls_required unless the URL ends in "
            "?insecure=true, meant for a relay on a trusted local network (smtp:// only)."
        ),
    )
    smtp_from: str | None = Field(default=None, description="Sender address of send_email.")


class McpSettings(BaseModel):
    """MCP servers."""

    mcp_stdio_servers: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description=(
            "Stdio MCP servers a space may connect: name -> {command, args, env}, run on worker machines."
            " JSON in AUTOMATIONS_MCP_STDIO_SERVERS; a command never comes from the API."
        ),
    )
    mcp_reharvest_hours: float = Field(
        default=24.0,
        gt=0,
        description="Beat lists a connection's tools again when its harvest is older than this.",
    )
    mcp_relist_after_seconds: float = Field(
        default=300.0,
        ge=0,
        description=(
            "Before an MCP tool call, its connection's tools are listed again when the last listing is older"
            " than this (at most once per connection per process per interval); a tool found changed or"
            " gone needs approval for that call. 0 turns the check off (drift is then found by harvests)."
        ),
    )
    mcp_session_idle_seconds: float = Field(
        default=60.0,
        ge=0,
        le=3600,
        description=(
            "An MCP session over HTTP stays open between tool calls for this long without a call (one per"
            " connection and credential, per worker process), so a call skips connecting and initialising."
            " 0 opens a session per call. OAuth and stdio connections always open a session per call."
        ),
    )
    mcp_session_pool_size: int = Field(
        default=64,
        ge=1,
        le=10000,
        description=(
            "At most this many MCP sessions stay open per process; opening one more closes the least"
            " recently used."
        ),
    )
    mcp_call_timeout_seconds: float = Field(
        default=30.0,
        gt=0,
        le=600,
        description="Time a harvest, an authorization or another call outside a step may take.",
    )
    public_url: str | None = Field(
        default=None,
        description=(
            "Where users reach this API (https://automations.example.com): OAuth redirect URIs and emailed"
            " approval links are built from it. Unset = http://<api host>:<port>."
        ),
    )

    @field_validator("mcp_stdio_servers")
    @classmethod
    def _stdio_servers(cls, value: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Each stdio server names a command, optional string args and a string env."""
        for name, server in value.items():
            command = server.get("command")
            args = server.get("args", [])
            env = server.get("env", {})
            if not isinstance(command, str) or not command:
                raise ValueError(f"stdio MCP server {name!r}: command must be a non-empty string")
            if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
                raise ValueError(f"stdio MCP server {name!r}: args must be a list of strings")
            if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
                raise ValueError(f"stdio MCP server {name!r}: env must map names to strings")
        return value


class ArtifactSettings(BaseModel):
    """Artifacts and database queries."""

    artifacts_url: str | None = Field(
        default=None,
        description=(
            "s3://bucket/prefix: an S3-compatible store (AWS_* variables); unset ="
            " $AUTOMATIONS_HOME/artifacts."
        ),
    )
    artifact_retention_days: int = Field(
        default=30, ge=1, le=3650, description="Life of artifacts kept with the `default` retention."
    )
    artifact_quota_bytes: int = Field(default=5 * 1024**3, ge=1, description="Artifact bytes per space.")
    artifact_max_bytes: int = Field(default=100 * 1024**2, ge=1, description="Largest single artifact.")
    database_statement_timeout_seconds: float = Field(
        default=10.0, gt=0, le=600, description="statement_timeout of a database query capability."
    )


class KnowledgeSettings(BaseModel):
    """Knowledge.

    Documents a space's automations search and read (docs/knowledge.md).
    """

    knowledge_max_upload_bytes: int = Field(
        default=20 * 1024**2,
        ge=1,
        description="Largest document upload (or JSON text) in bytes; above: 413 document_too_large.",
    )
    knowledge_max_documents: int = Field(
        default=10_000, ge=1, description="Documents per space; past it: 409 document_quota_exceeded."
    )
    knowledge_max_space_bytes: int = Field(
        default=1024**3,
        ge=1,
        description=(
            "Bytes of document text and uploads kept per space; past it: 409 document_quota_exceeded."
        ),
    )
    knowledge_max_text_chars: int = Field(
        default=2_000_000, ge=1000, description="Characters of text kept from one document (the rest cut)."
    )
    knowledge_language: str = Field(
        default="english",
        pattern=r"^[a-z_]{1,63}$",
        description="PostgreSQL text-search configuration for new chunks and queries (simple = no stemming).",
    )
    knowledge_embedding_model: str | None = Field(
        default=None,
        description=(
            "litellm embedding model (e.g. openai/text-embedding-3-small, settings as in llm_models);"
            " unset, or a server without pgvector = full-text search only."
        ),
    )
