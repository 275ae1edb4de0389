"""Settings: unsafe secrets refused outside development, URLs normalised, the stack file honoured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import DEV_API_CPU_NICE, DEV_WORKER_PROCESSES, dev_environment, dev_worker_processes
from app.config import ConfigurationError, Settings
from app.config.cores import usable_cores


@pytest.fixture(autouse=True)
def _silent_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests describe the settings alone, whatever the machine's environment says."""
    import os

    for name in list(os.environ):
        if name.startswith("AUTOMATIONS_") or name in {
            "DATABASE_URL",
            "DATABASE_DIRECT_URL",
            "REDIS_URL",
            "PORT",
        }:
            monkeypatch.delenv(name)


class TestSecretKey:
    @pytest.mark.parametrize("environment", ["production", "test"])
    def test_missing_secret_is_refused_outside_development(self, environment: str) -> None:
        with pytest.raises(ConfigurationError, match="AUTOMATIONS_SECRET_KEY"):
            Settings(environment=environment, secret_key=None)

    @pytest.mark.parametrize("weak", ["changeme", "secret", "short-but-not-default"])
    def test_weak_secret_is_refused_in_production(self, weak: str) -> None:
        with pytest.raises(ConfigurationError):
            Settings(environment="production", secret_key=weak)

    def test_long_random_secret_is_accepted(self) -> None:
        settings = Settings(environment="production", secret_key="x" * 16 + "y" * 32)
        assert settings.resolved_secret_key() == "x" * 16 + "y" * 32

    def test_development_generates_and_keeps_a_key(self, tmp_path: Path) -> None:
        settings = Settings(environment="development", home=tmp_path)
        first = settings.resolved_secret_key()
        assert len(first) >= 32
        assert Settings(environment="development", home=tmp_path).resolved_secret_key() == first
        assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0


class TestUrls:
    def test_plain_postgres_urls_use_asyncpg(self) -> None:
        settings = Settings(database_url="postgresql://u@h:5432/d")
        assert settings.resolved_database_url() == "postgresql+asyncpg://u@h:5432/d"

    def test_stack_file_is_used_when_environment_is_silent(self, tmp_path: Path) -> None:
        (tmp_path / "stack.json").write_text(
            json.dumps(
                {"database_url": "postgresql+asyncpg://p@/a?host=/x", "redis_url": "redis://127.0.0.1:7/0"}
            )
        )
        settings = Settings(home=tmp_path)
        assert settings.resolved_database_url() == "postgresql+asyncpg://p@/a?host=/x"
        assert settings.resolved_redis_url() == "redis://127.0.0.1:7/0"

    def test_environment_wins_over_stack_file(self, tmp_path: Path) -> None:
        (tmp_path / "stack.json").write_text(json.dumps({"redis_url": "redis://127.0.0.1:7/0"}))
        assert (
            Settings(home=tmp_path, redis_url="redis://other:6379/1").resolved_redis_url()
            == "redis://other:6379/1"
        )

    def test_nothing_configured_says_what_to_do(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigurationError, match="make run"):
            Settings(home=tmp_path).resolved_database_url()


class TestPooler:
    def test_a_transaction_pooler_without_a_direct_url_is_refused(self) -> None:
        with pytest.raises(ConfigurationError, match="AUTOMATIONS_DATABASE_DIRECT_URL"):
            Settings(database_url="postgresql://pgbouncer:6432/app", database_pooler="transaction")

    def test_the_direct_url_serves_listen_and_migrations_the_pooled_one_the_rest(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("DATABASE_URL", "postgresql://pgbouncer:6432/app")
        monkeypatch.setenv("DATABASE_DIRECT_URL", "postgres://primary:5432/app")
        monkeypatch.setenv("AUTOMATIONS_DATABASE_POOLER", "transaction")
        settings = Settings()
        assert settings.behind_transaction_pooler
        assert settings.resolved_database_url() == "postgresql+asyncpg://pgbouncer:6432/app"
        assert settings.resolved_direct_database_url() == "postgresql+asyncpg://primary:5432/app"

    def test_without_a_pooler_the_direct_url_is_the_database_url(self) -> None:
        settings = Settings(database_url="postgresql://primary:5432/app")
        assert not settings.behind_transaction_pooler
        assert settings.resolved_direct_database_url() == settings.resolved_database_url()

    def test_an_unknown_pooler_mode_is_refused(self) -> None:
        with pytest.raises(ValueError, match="database_pooler"):
            Settings(database_pooler="session")


class TestRateLimit:
    def test_a_rate_limit_too_large_to_count_is_refused_at_start(self) -> None:
        with pytest.raises(ConfigurationError, match="WEBHOOK_RATE_LIMIT"):
            Settings(webhook_rate_limit=10**9, webhook_rate_window_seconds=60)

    def test_large_but_countable_limit_is_accepted(self) -> None:
        assert Settings(webhook_rate_limit=10**7, webhook_rate_window_seconds=60).webhook_rate_limit == 10**7

    def test_an_auth_failure_limit_too_large_to_count_is_refused_at_start(self) -> None:
        with pytest.raises(ConfigurationError, match="AUTH_FAILURE_LIMIT"):
            Settings(auth_failure_limit=10**9, auth_failure_window_seconds=60)


class TestTokenLifetimes:
    def test_a_default_past_the_maximum_is_refused(self) -> None:
        with pytest.raises(ConfigurationError, match="AUTOMATIONS_TOKEN_TTL_DAYS"):
            Settings(token_ttl_days=400, token_max_ttl_days=365)

    def test_a_session_longer_than_the_maximum_is_refused(self) -> None:
        with pytest.raises(ConfigurationError, match="AUTOMATIONS_SESSION_TOKEN_HOURS"):
            Settings(token_ttl_days=1, token_max_ttl_days=1, session_token_hours=48)

    @pytest.mark.parametrize(
        "changes",
        [
            {"token_ttl_days": 0},
            {"token_max_ttl_days": 3651},
            {"invitation_ttl_hours": 0},
            {"invitation_ttl_hours": 24 * 31},
            {"signin_verification_slots": 0},
        ],
    )
    def test_out_of_bounds_values_are_refused(self, changes: dict[str, int]) -> None:
        with pytest.raises(ValueError, match="Input should be"):
            Settings(**changes)  # type: ignore[arg-type]


class TestSpendingCaps:
    def test_every_automation_is_bounded_by_default(self, monkeypatch: pytest.MonkeyPatch) -> None:
        for name in ("DEFAULT_DAILY_COST_CAP_USD", "DEFAULT_RUN_TOKEN_CAP"):
            monkeypatch.delenv(f"AUTOMATIONS_{name}", raising=False)
        settings = Settings()
        assert settings.default_daily_cost_cap_usd == 1.0
        assert settings.default_run_token_cap == 200_000
        assert settings.default_daily_cost_cap_usd <= settings.max_daily_cost_cap_usd
        assert settings.default_run_token_cap <= settings.max_run_token_cap

    def test_environment_sets_the_caps(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("AUTOMATIONS_DEFAULT_DAILY_COST_CAP_USD", "0.5")
        monkeypatch.setenv("AUTOMATIONS_MAX_RUN_TOKEN_CAP", "400000")
        settings = Settings()
        assert (settings.default_daily_cost_cap_usd, settings.max_run_token_cap) == (0.5, 400_000)

    @pytest.mark.parametrize(
        ("changes", "named"),
        [
            ({"default_daily_cost_cap_usd": 10, "max_daily_cost_cap_usd": 5}, "DAILY_COST_CAP_USD"),
            ({"default_run_token_cap": 10, "max_run_token_cap": 5}, "RUN_TOKEN_CAP"),
        ],
    )
    def test_a_default_above_its_maximum_is_refused(self, changes: dict[str, float], named: str) -> None:
        with pytest.raises(ConfigurationError, match=f"AUTOMATIONS_DEFAULT_{named}"):
            Settings(**changes)

    def test_a_negative_cap_is_refused(self) -> None:
        with pytest.raises(ValueError):
            Settings(default_daily_cost_cap_usd=-1)


class TestApiCpuPriority:
    @pytest.mark.parametrize("nice", [-1, 20])
    def test_a_priority_outside_what_nice_takes_is_refused(self, nice: int) -> None:
        with pytest.raises(ValueError, match="api_cpu_nice"):
            Settings(api_cpu_nice=nice)

    def test_the_dev_stack_lowers_the_apis_priority_unless_told(self, tmp_path: Path) -> None:
        env = dev_environment(Settings(), tmp_path)
        assert env["AUTOMATIONS_API_CPU_NICE"] == str(DEV_API_CPU_NICE)
        assert env["AUTOMATIONS_HOME"] == str(tmp_path)

    @pytest.mark.parametrize("told", ["0", "3"])
    def test_the_dev_stack_keeps_a_priority_it_was_told(
        self, told: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("AUTOMATIONS_API_CPU_NICE", told)
        assert dev_environment(Settings(), tmp_path)["AUTOMATIONS_API_CPU_NICE"] == told

    def test_a_priority_from_a_settings_file_is_kept_too(self, tmp_path: Path) -> None:
        # Settings read from a .env file are not in the environment the dev stack passes on.
        (tmp_path / ".env").write_text("AUTOMATIONS_API_CPU_NICE=2\n")
        settings = Settings(_env_file=tmp_path / ".env")  # type: ignore[call-arg]
        assert settings.api_cpu_nice == 2
        assert "AUTOMATIONS_API_CPU_NICE" not in dev_environment(settings, tmp_path)


class TestDevWorker:
    def test_the_dev_worker_runs_the_default_pool_up_to_its_bound(self) -> None:
        assert dev_worker_processes(Settings()) == min(2 * usable_cores(), DEV_WORKER_PROCESSES)

    def test_a_concurrency_it_was_told_wins(self) -> None:
        assert dev_worker_processes(Settings(worker_concurrency=7)) == 7
