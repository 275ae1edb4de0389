"""A real PgBouncer (Debian's `pgbouncer` package) in transaction mode in front of the test PostgreSQL, on
a free loopback port, with its ini file, user list and log in a temporary folder of its own."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from sqlalchemy.engine import make_url

from app.devstack import free_port

CANDIDATES = ("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer")
START_TIMEOUT_SECONDS = 20.0


def find_pgbouncer() -> str | None:
    """The pgbouncer binary: on PATH, or where Debian's package puts it (/usr/sbin is not on every PATH)."""
    found = shutil.which("pgbouncer")
    if found:
        return found
    return next((path for path in CANDIDATES if os.access(path, os.X_OK)), None)


class PgBouncer:
    """`pgbouncer <folder>/pgbouncer.ini` as a child process; `url(database)` reaches a database through it.

    `pool_size` server connections per database and user are shared by every client, so clients take
    turns on few server connections, as in production; a small pool makes any session state that leaks
    from one transaction to the next show at once.
    """

    def __init__(self, binary: str, upstream_url: str, *, pool_size: int = 4) -> None:
        upstream = make_url(upstream_url)
        self.user = upstream.username or "postgres"
        self.port = free_port()
        folder = self.folder = Path(tempfile.mkdtemp(prefix="automations-pgbouncer-"))
        self.log_path = folder / "pgbouncer.log"
        host = upstream.host or upstream.query.get("host") or "127.0.0.1"
        (folder / "userlist.txt").write_text(f'"{self.user}" ""\n')
        (folder / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"* = host={host} port={upstream.port or 5432}\n"
            "[pgbouncer]\n"
            "listen_addr = 127.0.0.1\n"
            f"listen_port = {self.port}\n"
            "unix_socket_dir =\n"
            "auth_type = trust\n"
            f"auth_file = {folder / 'userlist.txt'}\n"
            "pool_mode = transaction\n"
            f"default_pool_size = {pool_size}\n"
            "max_client_conn = 1000\n"
        )
        # PgBouncer refuses to run as root; it then runs as `nobody`, who must read the files (in /tmp).
        argv = [binary, str(folder / "pgbouncer.ini")]
        if os.geteuid() == 0:
            folder.chmod(0o755)
            for path in folder.iterdir():
                path.chmod(0o644)
            argv[1:1] = ["-u", "nobody"]
        self._log = self.log_path.open("ab")
        self.process = subprocess.Popen(argv, stdout=self._log, stderr=subprocess.STDOUT)
        self._wait_until_listening()

    def _wait_until_listening(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"pgbouncer exited early:\n{self.log_tail()}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.5):
                return
            time.sleep(0.05)
        raise RuntimeError(f"pgbouncer did not listen in {START_TIMEOUT_SECONDS} s:\n{self.log_tail()}")

    def url(self, database: str) -> str:
        """An asyncpg URL of `database` through this PgBouncer."""
        return f"postgresql+asyncpg://{self.user}@127.0.0.1:{self.port}/{database}"

    def log_tail(self, size: int = 4000) -> str:
        return self.log_path.read_text(errors="replace")[-size:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        shutil.rmtree(self.folder, ignore_errors=True)
