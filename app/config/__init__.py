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

from app.config.connections import (
    ArtifactSettings,
    DeliverySettings,
    KnowledgeSettings,
    McpSettings,
    OutboundSettings,
)
from app.config.sections import (
    MIN_METRICS_TOKEN_LENGTH,
    ApiSettings,
    AuthoringSettings,
    LlmSettings,
    SigninSettings,
    SpendingSettings,
    TriggerSettings,
    WorkerSettings,
)

STACK_FILE = "stack.json"
SECRET_KEY_FILE = "secret_key"  # noqa: S105 (a file name, not a secret)
_WEAK_SECRETS = {"", "changeme", "changethis", "secret", "development", "dev"}
MIN_SECRET_LENGTH = 32


class ConfigurationError(RuntimeError):
    """The settings cannot describe a working service (missing database, unsafe secret, ...)."""


class Settings(
    ApiSettings,
    WorkerSettings,
    LlmSettings,
    SpendingSettings,
    AuthoringSettings,
    TriggerSettings,
    SigninSettings,
    OutboundSettings,
    DeliverySettings,
    McpSettings,
    ArtifactSettings,
    KnowledgeSettings,
    BaseSettings,
):
    """All settings of the service: the core ones here, each subsystem's in its section
    (`app/config/sections.py`), grouped by their name prefixes."""

    model_config = SettingsConfigDict(env_prefix="AUTOMATIONS_", extra="ignore", populate_by_name=True)

    environment: Literal["development", "test", "production"] = Field(
        default="development",
        description="Outside development a strong AUTOMATIONS_SECRET_KEY is required.",
    )
    home: Path = Field(
        default=Path(".automations"),
        description=(
            "Data folder of the embedded servers, the stack file, the beat schedule, metrics and the"
            " generated development secret key."
        ),
    )
    secret_key: SecretStr | None = Field(
        default=None,
        description=(
            "Required outside development: at least 32 random characters, well-known values refused. Stored"
            " secrets are encrypted under a key derived from it; in development one is generated once."
        ),
    )
    previous_secret_key: SecretStr | None = Field(
        default=None,
        description=(
            "During a key rotation, the old key: it still decrypts what it sealed, never encrypts"
            " (secrets.md)."
        ),
    )

    database_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("DATABASE_URL", "AUTOMATIONS_DATABASE_URL"),
        description=(
            "PostgreSQL URL (postgresql://…; the asyncpg driver is used). Unset = the embedded server"
            " `automations dev` started."
        ),
    )
    redis_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("REDIS_URL", "AUTOMATIONS_REDIS_URL"),
        description="Redis URL, Celery's broker. Unset = the embedded server `automations dev` started.",
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
        description=(
            "Connections an API process may open beyond the pool in a burst (closed after use, so a"
            " reopened one costs a connect)."
        ),
    )
    database_pooler: Literal["none", "transaction"] = Field(
        default="none",
        description=(
            "`transaction` when DATABASE_URL points at a pooler in transaction mode (PgBouncer"
            " pool_mode=transaction): no prepared statement outlives its statement, nothing runs in"
            " autocommit, and the live run"
            " stream, migrations and CLI commands use AUTOMATIONS_DATABASE_DIRECT_URL (docs/scaling.md)."
        ),
    )
    database_direct_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("DATABASE_DIRECT_URL", "AUTOMATIONS_DATABASE_DIRECT_URL"),
        description=(
            "A connection straight to PostgreSQL, past the pooler: LISTEN for the live run stream (one"
            " connection per API process), migrations and CLI commands. Unset = DATABASE_URL; required"
            " with AUTOMATIONS_DATABASE_POOLER=transaction."
        ),
    )
    redis_key_prefix: str = Field(
        default="",
        max_length=64,
        description=(
            "Prefix of Celery's keys in Redis and of the service's own named ones (beat's last tick, "
            "sign-in lockouts, rate limits, drafts), to share one Redis between installations."
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
