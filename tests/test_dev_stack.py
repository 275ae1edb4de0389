"""`automations dev` (what `make run` starts): embedded servers, api, worker, beat; Ctrl-C stops all."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest

from app.cli import DEV_API_CPU_NICE, DEV_WORKER_PROCESSES
from app.config.cores import usable_cores
from tests.support.factories import minimal_definition

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _clean_env(home: Path, port: int) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("AUTOMATIONS_") and k not in {"DATABASE_URL", "REDIS_URL"}
    }
    env.update(AUTOMATIONS_HOME=str(home), PORT=str(port))
    return env


def _start(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli", "dev"],
        env=env,
        cwd=ROOT,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )


def _wait_ready(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()[-3000:]
        try:
            response = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1)
            if response.status_code == 200 and response.json()["beat_last_tick"]:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise AssertionError("dev stack not ready in 90 s:\n" + log.read_text()[-3000:])


def _child(process: subprocess.Popen[bytes], command: str) -> psutil.Process:
    """The dev stack's child process started as `automations <command>`."""
    for child in psutil.Process(process.pid).children():
        arguments = child.cmdline()
        if "app.cli" in arguments and arguments[arguments.index("app.cli") + 1 :][:1] == [command]:
            return child
    raise AssertionError(f"no `automations {command}` among the dev stack's children")


def _interrupt(process: subprocess.Popen[bytes], log: Path) -> None:
    children = psutil.Process(process.pid).children(recursive=True)
    assert len(children) >= 4, "api, worker (+ its pool), beat and redis run as children"
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=60) == 0, log.read_text()[-3000:]
    _gone, alive = psutil.wait_procs(children, timeout=10)
    assert alive == [], [p.cmdline() for p in alive]


@pytest.mark.timeout(300)
def test_dev_stack_starts_serves_stops_and_keeps_its_data(tmp_path: Path) -> None:
    home = tmp_path / "home"
    port = _free_port()
    env = _clean_env(home, port)
    log = tmp_path / "dev.log"

    process = _start(env, log)
    try:
        _wait_ready(port, process, log)
        assert httpx.get(f"http://127.0.0.1:{port}/docs", timeout=5).status_code == 200
        # The api yields the CPU to the worker (nice 10 by default); the worker runs its default pool
        # (two processes per core, at most four here).
        own = psutil.Process().nice()
        api, worker = _child(process, "api"), _child(process, "worker")
        assert api.nice() == min(own + DEV_API_CPU_NICE, 19)
        assert worker.nice() == own
        pool = [child for child in worker.children() if "resource_tracker" not in " ".join(child.cmdline())]
        assert len(pool) == min(2 * usable_cores(), DEV_WORKER_PROCESSES)
        made = subprocess.run(
            [sys.executable, "-m", "app.cli", "create-admin", "--space", "Acme", "--email", "ops@acme.test"],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        admin = json.loads(made.stdout)
        headers = {"Authorization": f"Bearer {admin['token']}"}
        created = httpx.post(
            f"http://127.0.0.1:{port}/api/v1/spaces/{admin['space_id']}/automations",
            json={"definition": minimal_definition(name="Survives restarts")},
            headers=headers,
            timeout=10,
        )
        assert created.status_code == 201, created.text
        _interrupt(process, log)
        assert not (home / "stack.json").exists()
        assert not (home / "pgdata" / "postmaster.pid").exists(), "PostgreSQL was stopped"

        process = _start(env, log)
        _wait_ready(port, process, log)
        listed = httpx.get(
            f"http://127.0.0.1:{port}/api/v1/spaces/{admin['space_id']}/automations",
            headers=headers,
            timeout=10,
        )
        assert [a["name"] for a in listed.json()["items"]] == ["Survives restarts"]
        _interrupt(process, log)
    finally:
        if process.poll() is None:
            process.kill()
