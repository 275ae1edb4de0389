"""The settings of each subsystem, one mixin a section; `Settings` (app/config/__init__.py) combines them."""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, BaseModel, Field, SecretStr, field_validator

MIN_METRICS_TOKEN_LENGTH = 16


class ApiSettings(BaseModel):
    """The API processes."""

    api_host: str = "127.0.0.1"
    api_port: int = Field(default=8000, validation_alias=AliasChoices("PORT", "AUTOMATIONS_API_PORT"))
    api_workers: int | None = Field(
        default=None, ge=1, le=256, description="API processes `automations api` starts (default: CPU count)."
    )
    metrics_enabled: bool = Field(
        default=True, description="Serve /metrics and record metrics (prometheus-client, multiprocess)."
    )
    metrics_token: SecretStr | None = Field(
        default=None,
        description=(
            f"When set (at least {MIN_METRICS_TOKEN_LENGTH} characters), /metrics answers only requests "
            "with `Authorization: Bearer <token>` (others get 401); unset = /metrics needs no token."
        ),
    )
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024)
    max_json_depth: int = Field(default=64, ge=4, le=512)
    page_size_default: int = Field(default=50, ge=1, le=500)
    page_size_max: int = Field(default=200, ge=1, le=1000)
    stream_recheck_seconds: float = Field(
        default=30.0,
        gt=0,
        le=30,
        description="An open event stream re-checks its caller's token and membership at least this "
        "often (at once when a revocation is announced, and at the token's expiry).",
    )


class WorkerSettings(BaseModel):
    """Workers, the run queue and plugins' background work."""

    worker_concurrency: int | None = Field(default=None, ge=1, le=256)
    beat_tick_seconds: float = Field(default=5.0, gt=0)
    max_concurrent_runs: int = Field(
        default=0, ge=0, description="Runs pending or running at once; 0 = no cap."
    )
    run_call_rate_limit: int = Field(
        default=60,
        ge=1,
        le=100_000,
        description="Capability calls one run may make per minute (Redis; fails open when Redis is away).",
    )
    run_lease_seconds: float = Field(
        default=30.0, ge=1, description="A claim not renewed for this long is lost."
    )
    run_on_failure_reserve_fraction: float = Field(
        default=0.1,
        ge=0,
        le=0.5,
        description=(
            "Share of a run's timeout kept for its on_failure steps when the plan runs out of time"
            " (only for automations that have on_failure steps)."
        ),
    )
    run_on_failure_reserve_min_seconds: float = Field(
        default=5.0,
        ge=0,
        le=3600,
        description="The reserve's floor in seconds; never more than half the run's timeout.",
    )
    run_requeue_after_seconds: float = Field(
        default=30.0,
        ge=1,
        description="A due pending run not claimed this long after its wake-up gets another.",
    )
    egress_allow: str = Field(
        default="", description="CIDRs and host names outbound requests may reach anyway."
    )
    plugins: str = Field(
        default="",
        description=(
            "Ids of the installed plugins this installation may load, separated by commas or spaces;"
            " empty = none (installing a plugin package alone runs none of its code)."
        ),
    )
    plugin_poll_min_seconds: float = Field(
        default=60.0,
        ge=1,
        description=(
            "The shortest period a plugin poller may register (a plugin asking for less is refused):"
            " each poller runs once per period in every space that enabled its plugin."
        ),
    )
    plugin_task_timeout_seconds: float = Field(
        default=30.0,
        gt=0,
        le=600,
        description=(
            "How long one poller or subscription call may take before it is cut and recorded as"
            " timed_out (a poller also never outlives its period)."
        ),
    )


class LlmSettings(BaseModel):
    """LLM providers (keys come from the provider's own environment variables, e.g. OPENAI_API_KEY)."""

    llm_allowed_models: list[str] = Field(
        default_factory=list,
        description="Models a definition may name (litellm names, e.g. openai/gpt-4o-mini); empty = none.",
    )
    llm_models: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description=(
            "Extra models: name -> {api_base, api_key_env, input_cost_per_token, output_cost_per_token,"
            " max_tokens}. JSON in AUTOMATIONS_LLM_MODELS."
        ),
    )
    llm_default_max_tokens: int = Field(default=1024, ge=1, le=200_000)


class SpendingSettings(BaseModel):
    """Spending caps of automation runs (an automation may set its own, up to the maximum)."""

    default_daily_cost_cap_usd: float = Field(
        default=1.0,
        ge=0,
        description="Per automation and UTC day, when its definition sets no cost_cap_daily_usd.",
    )
    max_daily_cost_cap_usd: float = Field(
        default=100.0, ge=0, description="The highest cost_cap_daily_usd a definition may set."
    )
    default_run_token_cap: int = Field(
        default=200_000,
        ge=1,
        description="LLM tokens (input + output) per run, when its definition sets no max_llm_tokens.",
    )
    max_run_token_cap: int = Field(
        default=2_000_000, ge=1, description="The highest max_llm_tokens a definition may set."
    )


class AuthoringSettings(BaseModel):
    """Natural-language authoring (drafts); both models must also be in llm_allowed_models."""

    authoring_model: str | None = Field(
        default=None, description="Model that drafts definitions from a request; unset = authoring off."
    )
    review_model: str | None = Field(
        default=None, description="Model that summarises a proposal; unset = the authoring model."
    )
    draft_ttl_seconds: int = Field(default=24 * 3600, ge=60, le=30 * 24 * 3600)
    draft_max_attempts: int = Field(
        default=3, ge=1, le=10, description="Generator calls per request, re-prompts with problems included."
    )
    authoring_daily_cap_usd: float = Field(
        default=5.0, ge=0, description="Per space and UTC day: authoring spend above this answers 429."
    )
    authoring_timeout_seconds: float = Field(default=60.0, gt=0, le=600)
    authoring_max_tokens: int = Field(default=4096, ge=256, le=100_000)


class TriggerSettings(BaseModel):
    """Triggers."""

    webhook_rate_limit: int = Field(default=120, ge=1, description="Fires per trigger per window.")
    webhook_rate_window_seconds: float = Field(default=60.0, gt=0)
    mcp_rate_limit: int = Field(
        default=120, ge=1, description="MCP server: calls per token and tool per window."
    )
    mcp_rate_window_seconds: float = Field(default=60.0, gt=0)
    mcp_call_wait_seconds: float = Field(
        default=30.0,
        ge=0,
        le=300,
        description="MCP server: how long a tool call waits for its run to finish before it answers with "
        "the run's id and status.",
    )
    auth_failure_limit: int = Field(
        default=30,
        ge=0,
        description="Failed authentications (401) per client address per window before it gets 429; 0 = off.",
    )
    auth_failure_window_seconds: float = Field(default=60.0, gt=0)


class SigninSettings(BaseModel):
    """Password sign-in (the web UI)."""

    session_token_hours: float = Field(
        default=8.0, gt=0, le=24 * 30, description="Lifetime of the API token a password sign-in returns."
    )
    signin_failure_limit: int = Field(
        default=10, ge=1, description="Failed password sign-ins per email per window before it is locked."
    )
    signin_lockout_seconds: int = Field(
        default=15 * 60, ge=1, description="The counting window, and how long a locked email stays locked."
    )
    token_ttl_days: int = Field(
        default=90, ge=1, le=3650, description="Lifetime of an API token made without one."
    )
    token_max_ttl_days: int = Field(
        default=365,
        ge=1,
        le=3650,
        description="Longest lifetime an API token may ask for (service tokens of admins excepted).",
    )
    invitation_ttl_hours: int = Field(
        default=72, ge=1, le=24 * 30, description="How long the link to a new member's first password works."
    )
    signin_verification_slots: int = Field(
        default=2,
        ge=1,
        le=16,
        description="Password checks of one email that may run at once; further attempts answer 429.",
    )
    max_chain_depth: int = Field(
        default=10, ge=1, le=100, description="Event chains longer than this are refused."
    )


class OutboundSettings(BaseModel):
    """Outbound webhooks (completion notices to endpoints of a space)."""

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
        default=None, description="Operator-wide endpoint: receives the run events of every space."
    )
    webhook_secret: SecretStr | None = Field(
        default=None, description="Signing secret (whsec_…) of the operator-wide endpoint."
    )
    webhook_disable_after_failures: int = Field(
        default=50, ge=1, description="Consecutive failed deliveries that disable an endpoint."
    )


class DeliverySettings(BaseModel):
    """Tight delivery actions."""

    slack_api_url: str = Field(
        default="https://slack.com/api", description="Base URL of Slack's Web API (a fake in tests)."
    )
    smtp_url: SecretStr | None = Field(
        default=None,
        description=(
            "smtp://user:password@host:587 or smtps://host:465; unset = send_email is unavailable. "
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
        default=24.0, gt=0, description="A connection's tools are listed again when older than this."
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
        description="At most this many MCP sessions stay open per process; the least recently used closes.",
    )
    mcp_call_timeout_seconds: float = Field(
        default=30.0, gt=0, le=600, description="Time a harvest or a call outside a step may take."
    )
    public_url: str | None = Field(
        default=None,
        description="Where users reach this API (https://automations.example.com): OAuth callbacks go here.",
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
        description="s3://bucket/prefix: an S3-compatible store (AWS_* variables); unset = HOME/artifacts.",
    )
    artifact_retention_days: int = Field(
        default=30, ge=1, le=3650, description="Life of `default` artifacts."
    )
    artifact_quota_bytes: int = Field(default=5 * 1024**3, ge=1, description="Artifact bytes per space.")
    artifact_max_bytes: int = Field(default=100 * 1024**2, ge=1, description="Largest single artifact.")
    database_statement_timeout_seconds: float = Field(
        default=10.0, gt=0, le=600, description="statement_timeout of a database query capability."
    )


class KnowledgeSettings(BaseModel):
    """Knowledge: documents a space's automations search and read (docs/knowledge.md)."""

    knowledge_max_upload_bytes: int = Field(
        default=20 * 1024**2, ge=1, description="Largest document upload (or text body) in bytes."
    )
    knowledge_max_documents: int = Field(default=10_000, ge=1, description="Documents per space.")
    knowledge_max_space_bytes: int = Field(
        default=1024**3, ge=1, description="Bytes of document text and uploads kept per space."
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
