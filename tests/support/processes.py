"""The service's own processes, as real child processes with their logs: a worker and beat in the tests, the
api and a worker in the benchmarks."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import psutil
import redis

from app.config import Settings
from app.worker.celery_app import ALL_QUEUES, create_celery

ROOT = Path(__file__).resolve().parents[2]
# How long a resumed worker may take to reconnect and take a message from each of its queues.
RECONNECT_SECONDS = 30


class ServiceProcess:
    """A child Python process (`argv` follows the interpreter), its output in `<log_dir>/<name>.log`."""

    def __init__(
        self, name: str, argv: list[str], env: dict[str, str], log_dir: Path, node: str | None = None
    ) -> None:
        self.name = name
        self.node = node  # a worker's Celery node name, for remote control addressed to it alone
        self.log_path = log_dir / f"{name}.log"
        self._argv = argv
        self._env = env
        self._start()

    def _start(self) -> None:
        self._log = self.log_path.open("ab")
        # A process group of its own, so stopping it also stops the pool children it forked.
        self.process = subprocess.Popen(
            [sys.executable, *self._argv],
            env=self._env,
            cwd=ROOT,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    @classmethod
    def cli(
        cls, name: str, args: list[str], env: dict[str, str], log_dir: Path, node: str | None = None
    ) -> ServiceProcess:
        """`automations <args>`, the way an operator starts it."""
        return cls(name, ["-m", "app.cli", *args], env, log_dir, node)

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def log_tail(self, size: int = 4000) -> str:
        return self.log_path.read_text(errors="replace")[-size:]

    def log_lines(self) -> list[str]:
        return self.log_path.read_text(errors="replace").splitlines()

    def stop(self, graceful: bool = True) -> None:
        """Stop the process and its children: politely (SIGTERM, then SIGKILL after 20 s), or at once
        when nothing looks at how it stops (the session's own processes at the end of the run, whose
        warm shutdown only added seconds)."""
        if self.alive():
            if graceful:
                self.process.terminate()
            else:
                self.process.kill()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)  # any pool child left behind
        self._log.close()

    def restart(self) -> None:
        """Kill the process and its children and start it again, as a supervisor would; the same
        object, so every fixture holding it keeps working."""
        self.stop(graceful=False)
        self._start()


def start_worker(settings: Settings, env: dict[str, str], name: str = "worker") -> ServiceProcess:
    """A worker on every queue (two pool processes), returned once it answers a ping."""
    node = f"{name}-{os.getpid()}@{socket.gethostname()}"
    worker = ServiceProcess.cli(name, ["worker", "-c", "2", "-n", node], env, settings.home, node)
    _wait_for_worker(settings, worker, node)
    return worker


def _wait_for_worker(settings: Settings, worker: ServiceProcess, node: str) -> None:
    celery = create_celery(settings)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if worker.process.poll() is not None:
            raise RuntimeError(f"worker exited early:\n{worker.log_tail()}")
        if celery.control.ping(destination=[node], timeout=0.5):
            return
    raise RuntimeError("worker did not start in 60 s")


@contextlib.contextmanager
def worker_down(worker: ServiceProcess, settings: Settings) -> Iterator[None]:
    """The worker and its pool children stopped, and its broker connections closed by the server; all
    resumed on exit, when the worker reconnects.

    Stopping alone is not enough to keep a wake-up from it: Redis still hands the next message to a
    stopped worker's pending BRPOP, off the queue and into a socket nobody reads yet.

    On exit the worker must take a message from each of its queues again. Now and then Celery's Redis
    transport reconnects without polling its queues any more (a race in the library, reported
    upstream): the worker stays alive and takes nothing. A deployment's liveness probe restarts such a
    worker (deploy/kubernetes); here the helper does the same, with a warning, so the test goes on to
    check what it is about: that the service itself lost nothing.
    """
    redis_url = settings.resolved_redis_url()
    parent = psutil.Process(worker.pid)
    processes = [parent, *parent.children(recursive=True)]
    redis_port = urlsplit(redis_url).port or 6379
    for process in processes:
        process.suspend()
    try:
        connections = parent.net_connections("tcp")
        ports = {c.laddr.port for c in connections if c.raddr and c.raddr.port == redis_port}
        client = redis.Redis.from_url(redis_url)
        try:
            for entry in client.client_list():
                if int(entry["addr"].rsplit(":", 1)[1]) in ports:
                    client.client_kill_filter(_id=entry["id"])
        finally:
            client.close()
        yield
    finally:
        for process in processes:
            process.resume()
    if not _serves_again(settings):
        warnings.warn(
            f"the worker took no message for {RECONNECT_SECONDS} s after reconnecting; restarted it."
            f" Its log:\n{worker.log_tail()}",
            stacklevel=3,
        )
        worker.restart()
        _wait_for_worker(settings, worker, worker.node or "")


def _serves_again(settings: Settings) -> bool:
    """Whether a worker answers a ping sent to each queue within RECONNECT_SECONDS."""
    celery = create_celery(settings)
    waiting = set(ALL_QUEUES)
    deadline = time.monotonic() + RECONNECT_SECONDS
    try:
        while waiting and time.monotonic() < deadline:
            for queue in sorted(waiting):
                # No route until the worker declares its queues again, or no answer yet: try again.
                with contextlib.suppress(Exception):
                    celery.send_task("system.ping", queue=queue).get(timeout=2)
                    waiting.discard(queue)
    finally:
        celery.close()
    return not waiting
