"""The `automations` command against the test servers, as a separate process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest
from httpx import AsyncClient
from pydantic import BaseModel, ValidationError, model_validator

from app.cli_common import invalid_settings
from app.config import Settings
from app.worker.celery_app import create_celery
from tests.support.processes import ServiceProcess, worker_down
from tests.support.servers import redis_with_db

ROOT_ARGS = [sys.executable, "-m", "app.cli"]


def _run(args: list[str], env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ROOT_ARGS, *args], env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


class TestCreateAdmin:
    async def test_prints_ids_and_a_working_token(
        self, client: AsyncClient, service_env: dict[str, str]
    ) -> None:
        result = _run(["create-admin", "--space", "Acme", "--email", "ops@acme.test"], service_env)
        assert result.returncode == 0, result.stderr
        made = json.loads(result.stdout)
        assert set(made) == {"space_id", "user_id", "token"}
        response = await client.get(
            f"/api/v1/spaces/{made['space_id']}", headers={"Authorization": f"Bearer {made['token']}"}
        )
        assert response.status_code == 200
        assert response.json()["role"] == "owner"
        assert response.json()["name"] == "Acme"

    def test_bad_email_is_a_usage_error(self, service_env: dict[str, str]) -> None:
        result = _run(["create-admin", "--space", "Acme", "--email", "nope"], service_env)
        assert result.returncode == 2
        assert "not an email address" in result.stderr
        assert "Traceback" not in result.stderr

    def test_without_any_database_it_says_how_to_get_one(self, tmp_path) -> None:  # type: ignore[no-untyped-def]
        env = {"PATH": "/usr/bin:/bin", "AUTOMATIONS_HOME": str(tmp_path)}
        result = _run(["create-admin", "--space", "A", "--email", "a@b.test"], env)
        assert result.returncode == 1
        assert "DATABASE_URL" in result.stderr
        assert "Traceback" not in result.stderr


class TestInvalidSettings:
    def test_a_value_out_of_range_names_its_variable_without_a_traceback(
        self, service_env: dict[str, str]
    ) -> None:
        env = {**service_env, "AUTOMATIONS_API_CPU_NICE": "25", "AUTOMATIONS_API_WORKERS": "0", "PORT": "x"}
        result = _run(["api", "--port", "0"], env)
        assert result.returncode == 1
        assert "AUTOMATIONS_API_CPU_NICE: Input should be less than or equal to 19" in result.stderr
        assert "AUTOMATIONS_API_WORKERS: Input should be greater than or equal to 1" in result.stderr
        # A setting read from either of two variables names both.
        assert "PORT or AUTOMATIONS_API_PORT: Input should be a valid integer" in result.stderr
        assert "Traceback" not in result.stderr

    def test_a_check_of_the_settings_as_a_whole_is_named_as_such(self) -> None:
        class Whole(BaseModel):
            @model_validator(mode="after")
            def refuse(self) -> Whole:
                raise ValueError("these two settings do not go together")

        with pytest.raises(ValidationError) as refused:
            Whole()
        assert invalid_settings(refused.value).splitlines()[1:] == [
            "  settings: Value error, these two settings do not go together"
        ]

    def test_an_invalid_secret_is_refused_without_showing_it(self, service_env: dict[str, str]) -> None:
        # A value a setting refuses may be a secret: the message names the variable, never the value.
        env = {**service_env, "AUTOMATIONS_LLM_DEFAULT_MAX_TOKENS": "secret-looking-42"}
        result = _run(["api", "--port", "0"], env)
        assert result.returncode == 1
        assert "AUTOMATIONS_LLM_DEFAULT_MAX_TOKENS: Input should be a valid integer" in result.stderr
        assert "secret-looking-42" not in result.stderr


class TestCheck:
    def test_reports_every_queue_served(self, worker, service_env: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
        result = _run(["check", "--timeout", "20"], service_env)
        assert result.returncode == 0, result.stdout + result.stderr
        report = json.loads(result.stdout)
        assert report["checks"] == {"database": "ok", "broker": "ok"}
        assert set(report["queues"]) == {"runs.fast", "runs.medium", "runs.long", "system"}
        assert all(
            value.startswith("served by") and value.endswith("(database ok)")
            for value in report["queues"].values()
        )

    def test_fails_when_no_worker_listens(self, service_env: dict[str, str]) -> None:
        # A Redis database no worker consumes: the broker answers, but nobody serves the queues.
        env = {**service_env, "REDIS_URL": redis_with_db(service_env["REDIS_URL"], 12)}
        result = _run(["check", "--timeout", "0.5"], env)
        assert result.returncode == 1
        report = json.loads(result.stdout)
        assert all(value.startswith("no worker answered") for value in report["queues"].values())


class TestWorkerAlive:
    """`automations worker-alive`, the workers' liveness probe (deploy/kubernetes)."""

    def test_a_serving_worker_is_alive_by_its_node_name_with_the_host_left_to_the_probe(
        self, worker: ServiceProcess, service_env: dict[str, str]
    ) -> None:
        name = worker.node.split("@")[0]  # type: ignore[union-attr]
        result = _run(["worker-alive", "-n", f"{name}@%h"], service_env)
        assert result.returncode == 0, result.stdout + result.stderr
        assert result.stdout.strip() == f"{worker.node}: alive"

    def test_a_worker_that_takes_nothing_from_the_broker_fails_the_probe(
        self, worker: ServiceProcess, service_env: dict[str, str], settings: Settings
    ) -> None:
        with worker_down(worker, settings):
            result = _run(["worker-alive", "-n", worker.node or "", "--timeout", "1"], service_env)
        assert result.returncode == 1
        assert result.stderr.strip() == f"{worker.node}: no answer within 1s"

    def test_an_unknown_node_fails_the_probe(
        self, worker: ServiceProcess, service_env: dict[str, str]
    ) -> None:
        result = _run(["worker-alive", "-n", "nobody@nowhere", "--timeout", "0.5"], service_env)
        assert result.returncode == 1
        assert "nobody@nowhere: no answer" in result.stderr

    def test_an_unreachable_broker_is_not_the_workers_fault(self, service_env: dict[str, str]) -> None:
        # A restart would not bring Redis back: the probe leaves the worker be, and says why.
        env = {**service_env, "REDIS_URL": "redis://:probe-password@127.0.0.1:1/0"}
        result = _run(["worker-alive", "-n", "any@host", "--timeout", "1"], env, timeout=120)
        assert result.returncode == 0
        assert "the broker did not answer" in result.stderr
        assert "not the worker's fault" in result.stderr
        assert "Traceback" not in result.stderr
        assert "probe-password" not in result.stdout + result.stderr


class TestWorkerPool:
    """`automations worker` without `-c`: its pool size (on a queue of its own, so it takes no work)."""

    @staticmethod
    def _pool_size(env: dict[str, str], settings: Settings, log_dir: Path) -> int:
        node = f"pool-{uuid.uuid4().hex[:6]}@localhost"
        worker = ServiceProcess.cli(
            "pool", ["worker", "-Q", "pool-size-only", "-n", node], env, log_dir, node
        )
        try:
            celery = create_celery(settings)
            deadline = time.monotonic() + 60
            while not celery.control.ping(destination=[node], timeout=0.5):
                assert worker.alive(), worker.log_tail()
                assert time.monotonic() < deadline, worker.log_tail()
            return len(psutil.Process(worker.pid).children())
        finally:
            worker.stop(graceful=False)

    @pytest.mark.parametrize(("setting", "expected"), [(None, 2 * len(os.sched_getaffinity(0))), ("3", 3)])
    def test_two_pool_processes_per_core_unless_told(
        self,
        service_env: dict[str, str],
        settings: Settings,
        tmp_path: Path,
        setting: str | None,
        expected: int,
    ) -> None:
        env = {k: v for k, v in service_env.items() if k != "AUTOMATIONS_WORKER_CONCURRENCY"}
        if setting is not None:
            env["AUTOMATIONS_WORKER_CONCURRENCY"] = setting
        assert self._pool_size(env, settings, tmp_path) == expected
