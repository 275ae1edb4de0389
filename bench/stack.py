"""The servers a benchmark run uses, its throwaway database and Redis database, and the service processes.

Servers: `DATABASE_URL` / `REDIS_URL` when set; else PostgreSQL and Redis on their default local ports
when they answer; else the embedded servers of `app.devstack` (the same rule as the test suite). On them
the bench creates a database of its own (migrated with Alembic, dropped at the end) and uses a Redis
database number of its own (flushed at start and end), so it never reads or writes user data.

The api (uvicorn, `automations api`) and the worker (`bench.worker`: `automations worker` plus the no-op
tasks) run as real child processes on loopback, started on first use and stopped at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import redis

from app.config import Settings
from app.devstack import free_port
from tests.support import servers as test_servers
from tests.support.processes import ServiceProcess
from tests.support.servers import Servers, admin_sql, asyncpg_dsn, redis_with_db, with_database

ROOT = Path(__file__).resolve().parents[1]
EMBEDDED_HOME = ROOT / ".automations" / "bench-stack"
SECRET_KEY = "bench-only-secret-key-" + "x" * 40
# Redis database numbers of the bench's own (the test suite uses 11). A run claims the first free one
# (preferred first) with a lock key, so two runs at once (a smoke run in each of two test sessions) never
# share a broker; AUTOMATIONS_BENCH_REDIS_DB=<n> forces one.
FULL_REDIS_DB = 12
SMOKE_REDIS_DB = 13
REDIS_DBS = (12, 13, 14, 15)
REDIS_LOCK_KEY = "automations-bench:owner"
REDIS_LOCK_SECONDS = 3600
# The webhook rate limit would refuse a benchmark's fires: raised for the api the bench starts. Not 10**9:
# the limiter refuses (500 on every fire) when limit x window (µs) passes 2**52, i.e. above ~75 M per 60 s.
UNLIMITED_WEBHOOK_RATE = 10**7
# Settings of the bench's environment its api and worker keep (every other AUTOMATIONS_ one is dropped),
# so a pair of runs can compare them: `AUTOMATIONS_DIRECT_CLAIM_BATCH=0 python -m bench throughput`.
PASSED_SETTINGS = frozenset({"AUTOMATIONS_DIRECT_CLAIM_BATCH", "AUTOMATIONS_WORKER_CONCURRENCY"})
# An SMTP relay, configured as a deployment that sends email approvals and send_email steps has one:
# what a process builds for it is part of what the bench measures. No bench run sends mail, so the
# relay (a name that never resolves) is never contacted.
SMTP_URL = "smtp://relay.invalid:25"
SMTP_FROM = "bench@example.com"
START_TIMEOUT_SECONDS = 60.0
# How long a worker may take to confirm it stopped or resumed consuming (Celery waits 1 s by default, which
# a loaded machine can miss).
CONTROL_TIMEOUT_SECONDS = 10.0


def log(message: str) -> None:
    """Progress goes to stderr, so stdout carries only the results."""
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- servers ---------------------------------------------------------------------------------------------


def resolve_servers() -> Servers:
    """The test suite's rule (`tests.support.servers`), with the bench's own folder for embedded servers.

    `AUTOMATIONS_BENCH_SERVERS=embedded` forces the embedded servers (what a clean machine gets).
    """
    servers = test_servers.resolve_servers(EMBEDDED_HOME, "AUTOMATIONS_BENCH_SERVERS")
    if servers.origin == "embedded":
        log(f"using the embedded servers in {EMBEDDED_HOME}")
    return servers


def _claim_redis_db(url: str, preferred: int, owner: str) -> str:
    """The URL of the first bench Redis database no other bench run holds, claimed for this one."""
    forced = os.environ.get("AUTOMATIONS_BENCH_REDIS_DB")
    candidates = [int(forced)] if forced else [preferred, *(db for db in REDIS_DBS if db != preferred)]
    for db in candidates:
        candidate = redis_with_db(url, db)
        client = redis.Redis.from_url(candidate)
        try:
            # A forced database is taken even if a (perhaps stale) lock says otherwise.
            if client.set(REDIS_LOCK_KEY, owner, nx=not forced, ex=REDIS_LOCK_SECONDS):
                return candidate
        finally:
            client.close()
    raise RuntimeError(
        f"Redis databases {candidates} are all held by other benchmark runs (key {REDIS_LOCK_KEY}); "
        "wait for them, or set AUTOMATIONS_BENCH_REDIS_DB"
    )


# --- the bench's stack -------------------------------------------------------------------------------


class BenchStack:
    """A fresh database and a Redis database of the bench's own, and the processes started on them."""

    def __init__(self, servers: Servers, redis_db: int) -> None:
        self.servers = servers
        self.database_name = f"automations_bench_{uuid.uuid4().hex[:10]}"
        self.database_url = with_database(servers.admin_database_url, self.database_name)
        self.redis_url = _claim_redis_db(servers.redis_url, redis_db, self.database_name)
        self.home = Path(tempfile.mkdtemp(prefix="automations-bench-"))
        self.settings = Settings(
            environment="test",
            secret_key=SECRET_KEY,
            database_url=self.database_url,
            redis_url=self.redis_url,
            home=self.home,
            webhook_rate_limit=UNLIMITED_WEBHOOK_RATE,
        )
        self._api: ServiceProcess | None = None
        self._extra: list[ServiceProcess] = []
        self._worker: ServiceProcess | None = None
        self.api_url = ""
        self.worker_node = ""
        self._celery: Any = None
        self._redis_client: redis.Redis | None = None
        self._created = False

    # lifecycle

    def open(self) -> BenchStack:
        self._flush_redis(keep_lock=True)
        log(f"creating database {self.database_name} ({self.servers.origin} servers)")
        asyncio.run(admin_sql(self.servers.admin_database_url, f'CREATE DATABASE "{self.database_name}"'))
        self._created = True
        from app.cli import run_migrations

        run_migrations(self.database_url)
        return self

    def close(self) -> None:
        for process in (self._worker, self._api, *self._extra):
            if process is not None:
                process.stop()
        self._worker = self._api = None
        self._extra = []
        if self._celery is not None:
            with contextlib.suppress(Exception):
                self._celery.close()
        if self._redis_client is not None:
            self._redis_client.close()
        if self._created:
            with contextlib.suppress(Exception):
                asyncio.run(
                    admin_sql(
                        self.servers.admin_database_url,
                        f'DROP DATABASE IF EXISTS "{self.database_name}" WITH (FORCE)',
                    )
                )
        with contextlib.suppress(Exception):
            self._flush_redis()
        shutil.rmtree(self.home, ignore_errors=True)

    def _flush_redis(self, *, keep_lock: bool = False) -> None:
        """Empty the bench's Redis database (at the start, keeping the lock that claims it)."""
        client = redis.Redis.from_url(self.redis_url)
        try:
            if not keep_lock:
                client.flushdb()
                return
            for key in client.scan_iter(count=1000):
                if key != REDIS_LOCK_KEY.encode():
                    client.delete(key)
        finally:
            client.close()

    def drop_waiting_work(self) -> None:
        """Drop what the benchmarks that measure intake alone leave waiting (only while no worker
        consumes): every message in the bench's Redis database and every run no worker took. A run
        left pending would be claimed by the first worker's drain (direct claims take the oldest
        pending run of the queue), ahead of the next benchmark's runs."""
        assert self._worker is None, "purging under a running worker would drop its in-flight messages"
        self._flush_redis(keep_lock=True)
        asyncio.run(self._delete_waiting_runs())

    async def _delete_waiting_runs(self) -> None:
        connection = await asyncpg.connect(self.dsn)
        try:
            await connection.execute("DELETE FROM runs WHERE status IN ('pending', 'queued')")
        finally:
            await connection.close()

    def log_tails(self) -> str:
        """The last lines of the logs of the api, the worker and any extra ones (for a failure report)."""
        parts = []
        for process in (self._api, self._worker, *self._extra):
            if process is not None:
                parts.append(f"--- {process.name} log ---\n{process.log_tail()}")
        return "\n".join(parts)

    # environment

    def direct_claims_text(self) -> str:
        """Whether the worker claims pending runs directly after its own (and how many per task)."""
        batch = self.child_env().get("AUTOMATIONS_DIRECT_CLAIM_BATCH")
        per_task = int(batch) if batch else Settings.model_fields["direct_claim_batch"].default
        how = "set" if batch else "default"
        return f"direct claims {'on, up to ' + str(per_task) + ' per task' if per_task else 'off'} ({how})"

    def child_env(self) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if (not key.startswith("AUTOMATIONS_") or key in PASSED_SETTINGS)
            and key not in {"DATABASE_URL", "REDIS_URL", "PORT"}
        }
        env.update(
            DATABASE_URL=self.database_url,
            REDIS_URL=self.redis_url,
            AUTOMATIONS_ENVIRONMENT="test",
            AUTOMATIONS_SECRET_KEY=SECRET_KEY,
            AUTOMATIONS_HOME=str(self.home),
            AUTOMATIONS_WEBHOOK_RATE_LIMIT=str(UNLIMITED_WEBHOOK_RATE),
            AUTOMATIONS_SMTP_URL=SMTP_URL,
            AUTOMATIONS_SMTP_FROM=SMTP_FROM,
        )
        return env

    @property
    def dsn(self) -> str:
        return asyncpg_dsn(self.database_url)

    @property
    def celery(self) -> Any:
        """A Celery client of the service's own app (the one the api and worker use)."""
        if self._celery is None:
            from app.worker.celery_app import create_celery

            self._celery = create_celery(self.settings)
        return self._celery

    def send_job(self, job: Any) -> None:
        """What the api and worker do with a job after their commit."""
        self.celery.send_task(
            job.name, args=job.args, kwargs=job.kwargs, queue=job.queue, countdown=job.countdown
        )

    # processes

    def api(self) -> ServiceProcess:
        """The REST API as `automations api` serves it (one process per core), on a free loopback port."""
        if self._api is None:
            self._api, self.api_url = self._start_api("api", {})
        return self._api

    def extra_api(self, name: str, env: dict[str, str]) -> tuple[ServiceProcess, str]:
        """Another api like `api()` with some settings changed (`env`), and its URL; stopped at the end."""
        process, url = self._start_api(name, env)
        self._extra.append(process)
        return process, url

    def stop_extra_api(self, process: ServiceProcess) -> None:
        process.stop()
        self._extra.remove(process)

    def _start_api(self, name: str, env: dict[str, str]) -> tuple[ServiceProcess, str]:
        port = free_port()
        log(f"starting the {name} on 127.0.0.1:{port}")
        home = self.home / name
        home.mkdir(exist_ok=True)
        process = ServiceProcess.cli(
            name,
            ["api", "--port", str(port)],
            {**self.child_env(), "AUTOMATIONS_HOME": str(home), **env},
            self.home,
        )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while True:
            if not process.alive():
                raise RuntimeError(f"the {name} exited early:\n{process.log_tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    return process, url
            if time.monotonic() > deadline:
                raise RuntimeError(f"the {name} did not answer in time:\n{process.log_tail()}")
            time.sleep(0.1)

    def worker(self) -> ServiceProcess:
        """One worker with the default settings (every queue, its default prefork pool)."""
        if self._worker is None:
            self._worker, self.worker_node = self._start_worker("worker", "bench", {})
        return self._worker

    def extra_worker(self, name: str, env: dict[str, str]) -> tuple[ServiceProcess, str]:
        """Another worker like `worker()` with some settings changed (`env`), and its node name; it
        consumes the same queues (pause one with `pause_queue`); stopped at the end."""
        ((process, node),) = self.extra_workers({name: env})
        return process, node

    def extra_workers(self, envs: dict[str, dict[str, str]]) -> list[tuple[ServiceProcess, str]]:
        """`extra_worker` for each name and its settings, all started before the first is waited for:
        their seconds of start-up overlap."""
        spawned = [self._spawn_worker(name, f"bench-{name}", env) for name, env in envs.items()]
        self._extra += [process for process, _ in spawned]
        for process, node in spawned:
            self._wait_for_worker(process, node)
        return spawned

    def stop_extra_worker(self, process: ServiceProcess) -> None:
        process.stop()
        self._extra.remove(process)

    def _start_worker(self, name: str, prefix: str, env: dict[str, str]) -> tuple[ServiceProcess, str]:
        process, node = self._spawn_worker(name, prefix, env)
        self._wait_for_worker(process, node)
        return process, node

    def _spawn_worker(self, name: str, prefix: str, env: dict[str, str]) -> tuple[ServiceProcess, str]:
        node = f"{prefix}-{os.getpid()}@{socket.gethostname()}"
        log(f"starting the {name} {node}")
        process = ServiceProcess(
            name, ["-m", "bench.worker", "-n", node], {**self.child_env(), **env}, self.home, node
        )
        return process, node

    def _wait_for_worker(self, process: ServiceProcess, node: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not self.celery.control.ping(destination=[node], timeout=0.5):
            if not process.alive():
                raise RuntimeError(f"the {process.name} exited early:\n{process.log_tail()}")
            if time.monotonic() > deadline:
                process.stop()
                raise RuntimeError(f"the {process.name} did not answer in time:\n{process.log_tail()}")

    @property
    def worker_running(self) -> bool:
        return self._worker is not None

    def pause_queue(self, queue: str, node: str = "") -> None:
        """The worker (`node`, default the main one) stops taking messages from `queue` (they wait)."""
        reply = self.celery.control.cancel_consumer(
            queue, destination=[node or self.worker_node], reply=True, timeout=CONTROL_TIMEOUT_SECONDS
        )
        assert reply, f"the worker did not confirm it stopped consuming {queue}"

    def consume(self, queue: str, node: str = "") -> None:
        """The worker (`node`, default the main one) consumes `queue` again."""
        reply = self.celery.control.add_consumer(
            queue, destination=[node or self.worker_node], reply=True, timeout=CONTROL_TIMEOUT_SECONDS
        )
        assert reply, f"the worker did not confirm it consumes {queue} again"

    def resume_queue(self, queue: str, node: str = "") -> float:
        """The worker (`node`, default the main one) consumes `queue` again; answers when it took the first
        of the messages waiting there.

        A consumer added back starts with the broker's next poll (up to a second later), so a batch is
        timed from its first message leaving the queue, not from this call (`time.time()` clock). The
        messages are counted rather than assumed one per run: with direct claims on, a backlog of runs
        may wait behind a single wake-up.
        """
        client = redis.Redis.from_url(self.redis_url)
        waiting = int(client.llen(queue))
        taken: list[float] = []

        def watch() -> None:
            deadline = time.monotonic() + START_TIMEOUT_SECONDS
            while time.monotonic() < deadline:
                if client.llen(queue) < waiting:
                    taken.append(time.time())
                    return
                time.sleep(0.0005)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            self.consume(queue, node)
            watcher.join()
        finally:
            client.close()
        if not taken:
            raise RuntimeError(f"the worker took nothing from {queue} after consuming it again")
        return taken[0]

    def broker_idle(self, queue: str) -> bool:
        """No message of `queue` waits, and none is held unacknowledged by a worker (late acks)."""
        client = self._redis()
        return not client.llen(queue) and not client.hlen("unacked")

    def redis_client(self) -> redis.Redis:
        """A client of the bench's Redis database (kept open until the end)."""
        return self._redis()

    def _redis(self) -> redis.Redis:
        if self._redis_client is None:
            self._redis_client = redis.Redis.from_url(self.redis_url)
        return self._redis_client
