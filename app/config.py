"""Settings, read from the environment (prefix `AUTOMATIONS_`) by every process.

The database and broker come from `DATABASE_URL` / `REDIS_URL`; when those are unset, from the
stack file that `automations dev` writes into the data folder, so every CLI command reaches a
stack that `make run` started.
"""

from __future__ import annotations

import json
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

STACK_FILE = "stack.json"
SECRET_KEY_FILE = "secret_key"  # noqa: S105 (a file name, not a secret)
_WEAK_SECRETS = {"", "changeme", "changethis", "secret", "development", "dev"}
MIN_SECRET_LENGTH = 32
MIN_METRICS_TOKEN_LENGTH = 16


class ConfigurationError(RuntimeError):
    """The settings cannot describe a working service (missing database, unsafe secret, ...)."""


class Settings(BaseSettings):
    """All settings of the service, grouped by subsystem through their name prefixes."""

    model_config = SettingsConfigDict(env_prefix="AUTOMATIONS_", extra="ignore", populate_by_name=True)

    environment: Literal["development", "test", "production"] = "development"
    home: Path = Field(default=Path(".automations"), description="Data folder of the embedded stack.")
    secret_key: SecretStr | None = None
    previous_secret_key: SecretStr | None = Field(
        default=None,
        description="The key being rotated away from: still decrypts what it sealed (see docs/secrets.md).",
    )

    database_url: str | None = Field(
        default=None, validation_alias=AliasChoices("DATABASE_URL", "AUTOMATIONS_DATABASE_URL")
    )
    redis_url: str | None = Field(
        default=None, validation_alias=AliasChoices("REDIS_URL", "AUTOMATIONS_REDIS_URL")
    )
    database_pool_size: int = Field(
        default=20,
        ge=1,
        le=200,
        description="Database connections each API process keeps open once it has needed them.",
    )
    database_max_overflow: int = Field(
        default=10,
        ge=0,
        le=200,
        description="Connections an API process may open beyond the pool in a burst (closed after use).",
    )
    database_pooler: Literal["none", "transaction"] = Field(
        default="none",
        description=(
            "`transaction` when DATABASE_URL points at a pooler in transaction mode (PgBouncer"
            " pool_mode=transaction): no prepared statement outlives its statement, and the live run"
            " stream, migrations and CLI commands use AUTOMATIONS_DATABASE_DIRECT_URL (docs/scaling.md)."
        ),
    )
    database_direct_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("DATABASE_DIRECT_URL", "AUTOMATIONS_DATABASE_DIRECT_URL"),
        description=(
            "A connection straight to PostgreSQL, past the pooler: LISTEN for the live run stream (one"
            " connection per API process), migrations and CLI commands. Unset = DATABASE_URL."
        ),
    )
    redis_key_prefix: str = Field(
        default="",
        max_length=64,
        description="Prefix of every Celery key in Redis, to share one Redis safely.",
    )

    # api
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

    # worker and run queue
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

    # LLM providers (keys come from the provider's own environment variables, e.g. OPENAI_API_KEY)
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

    # spending caps of automation runs (an automation may set its own, up to the maximum)
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

    # natural-language authoring (drafts); both models must also be in llm_allowed_models
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

    # triggers
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

    # password sign-in (the web UI)
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

    # outbound webhooks (completion notices to endpoints of a space)
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

    # tight delivery actions
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

    # MCP servers
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

    # artifacts and database queries
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

    # knowledge: documents a space's automations search and read (docs/knowledge.md)
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

    @field_validator("database_url", "database_direct_url")
    @classmethod
    def _async_driver(cls, value: str | None) -> str | None:
        """Accept the usual `postgresql://` spelling and use the asyncpg driver for it."""
        if value is None:
            return None
        for prefix in ("postgresql://", "postgres://"):
            if value.startswith(prefix):
                return "postgresql+asyncpg://" + value[len(prefix) :]
        return value

    @model_validator(mode="after")
    def _pooler_has_direct_url(self) -> Settings:
        # Through a transaction pooler, LISTEN lands on whichever server connection the pooler picks and
        # is never heard again: the live run stream would stay silent without a word.
        if self.database_pooler == "transaction" and not self.database_direct_url:
            raise ConfigurationError(
                "AUTOMATIONS_DATABASE_POOLER=transaction needs AUTOMATIONS_DATABASE_DIRECT_URL: a connection "
                "past the pooler for the live run stream (LISTEN), migrations and CLI commands"
            )
        return self

    @model_validator(mode="after")
    def _refuse_unsafe_secret(self) -> Settings:
        if self.environment == "development":
            return self
        key = self.secret_key.get_secret_value() if self.secret_key else ""
        if key.lower() in _WEAK_SECRETS or len(key) < MIN_SECRET_LENGTH:
            raise ConfigurationError(
                f"AUTOMATIONS_SECRET_KEY must be set to a random value of at least {MIN_SECRET_LENGTH} "
                f"characters when AUTOMATIONS_ENVIRONMENT={self.environment} "
                "(generate one with: python -c 'import secrets; print(secrets.token_urlsafe(48))')"
            )
        return self

    @field_validator("metrics_token", mode="before")
    @classmethod
    def _empty_metrics_token_is_unset(cls, value: Any) -> Any:
        # Compose files pass an unset variable as "": that means no token, not an empty one.
        return None if value == "" else value

    @model_validator(mode="after")
    def _metrics_token_long_enough(self) -> Settings:
        token = self.metrics_token.get_secret_value() if self.metrics_token else None
        if token is not None and len(token) < MIN_METRICS_TOKEN_LENGTH:
            raise ConfigurationError(
                f"AUTOMATIONS_METRICS_TOKEN must hold at least {MIN_METRICS_TOKEN_LENGTH} characters "
                "(generate one with: python -c 'import secrets; print(secrets.token_urlsafe(32))')"
            )
        return self

    @model_validator(mode="after")
    def _token_lifetimes_ordered(self) -> Settings:
        if self.token_ttl_days > self.token_max_ttl_days:
            raise ConfigurationError(
                "AUTOMATIONS_TOKEN_TTL_DAYS must not exceed AUTOMATIONS_TOKEN_MAX_TTL_DAYS "
                f"({self.token_ttl_days} > {self.token_max_ttl_days})"
            )
        if self.session_token_hours > self.token_max_ttl_days * 24:
            raise ConfigurationError(
                "AUTOMATIONS_SESSION_TOKEN_HOURS must not exceed AUTOMATIONS_TOKEN_MAX_TTL_DAYS in hours"
            )
        return self

    @model_validator(mode="after")
    def _rate_limit_countable(self) -> Settings:
        # The limiter counts in whole microseconds inside Redis Lua numbers (exact below 2**52).
        for name, limit, window in (
            ("WEBHOOK_RATE_LIMIT", self.webhook_rate_limit, self.webhook_rate_window_seconds),
            ("MCP_RATE_LIMIT", self.mcp_rate_limit, self.mcp_rate_window_seconds),
            ("AUTH_FAILURE_LIMIT", self.auth_failure_limit, self.auth_failure_window_seconds),
        ):
            if limit * window * 1_000_000 > 2**52:
                raise ConfigurationError(
                    f"AUTOMATIONS_{name} x its window in seconds is too large to count exactly; "
                    "lower one of them"
                )
        return self

    @model_validator(mode="after")
    def _spending_defaults_within_maximums(self) -> Settings:
        for name, default, maximum in (
            ("DAILY_COST_CAP_USD", self.default_daily_cost_cap_usd, self.max_daily_cost_cap_usd),
            ("RUN_TOKEN_CAP", self.default_run_token_cap, self.max_run_token_cap),
        ):
            if default > maximum:
                raise ConfigurationError(
                    f"AUTOMATIONS_DEFAULT_{name} must not exceed AUTOMATIONS_MAX_{name} "
                    f"({default} > {maximum})"
                )
        return self

    @model_validator(mode="after")
    def _authoring_models_allowed(self) -> Settings:
        for name, model in (("AUTHORING_MODEL", self.authoring_model), ("REVIEW_MODEL", self.review_model)):
            if model is not None and model not in self.llm_allowed_models:
                raise ConfigurationError(
                    f"AUTOMATIONS_{name}={model} is not in AUTOMATIONS_LLM_ALLOWED_MODELS; add it there"
                )
        return self

    @property
    def artifacts_dir(self) -> Path:
        """Where the filesystem store keeps artifact bytes (when no AUTOMATIONS_ARTIFACTS_URL is set)."""
        return self.home / "artifacts"

    @property
    def stack_file(self) -> Path:
        return self.home / STACK_FILE

    @property
    def plugin_ids(self) -> tuple[str, ...]:
        """The allow-list of AUTOMATIONS_PLUGINS, in its order, without repeats."""
        return tuple(dict.fromkeys(s.strip() for s in self.plugins.replace(",", " ").split() if s.strip()))

    def resolved_database_url(self) -> str:
        """The database URL from the environment, else from the running embedded stack."""
        url = self.database_url or self._from_stack_file("database_url")
        if not url:
            raise ConfigurationError(
                "No database configured: set DATABASE_URL, or start the embedded stack with `make run`."
            )
        return url

    def resolved_direct_database_url(self) -> str:
        """The database URL past any pooler (AUTOMATIONS_DATABASE_DIRECT_URL), else the database URL."""
        return self.database_direct_url or self.resolved_database_url()

    @property
    def behind_transaction_pooler(self) -> bool:
        """Whether DATABASE_URL reaches PostgreSQL through a pooler in transaction mode."""
        return self.database_pooler == "transaction"

    def resolved_redis_url(self) -> str:
        """The Redis URL from the environment, else from the running embedded stack."""
        url = self.redis_url or self._from_stack_file("redis_url")
        if not url:
            raise ConfigurationError(
                "No Redis configured: set REDIS_URL, or start the embedded stack with `make run`."
            )
        return url

    def resolved_secret_key(self) -> str:
        """The secret key; in development one is generated once and kept in the data folder."""
        if self.secret_key is not None and self.secret_key.get_secret_value():
            return self.secret_key.get_secret_value()
        path = self.home / SECRET_KEY_FILE
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(secrets.token_urlsafe(48))
            path.chmod(0o600)
        return path.read_text().strip()

    def _from_stack_file(self, key: str) -> str | None:
        try:
            data = json.loads(self.stack_file.read_text())
        except (OSError, ValueError):
            return None
        value = data.get(key)
        return value if isinstance(value, str) else None


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return Settings()
