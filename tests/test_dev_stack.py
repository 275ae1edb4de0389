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
