"""What a benchmark run measures besides its figures: the memory and CPU time of the service's
processes, the machine it ran on, and whether other work shared that machine meanwhile."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import platform
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import asyncpg
import psutil
import redis

if TYPE_CHECKING:
    from bench.stack import BenchStack


# --- memory -------------------------------------------------------------------------------------------


class RssSampler:
    """Samples the resident memory of the api and the worker (main and pool processes) in a thread."""

    def __init__(self, api_pid: int, worker_pid: int, interval: float = 0.05) -> None:
        self.api = psutil.Process(api_pid)
        self.worker = psutil.Process(worker_pid)
        self.interval = interval
        self.peak: dict[str, int] = {"api": 0, "worker_main": 0, "worker_pool": 0, "sandbox": 0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def snapshot(self) -> dict[str, int]:
        """RSS now: the api, the worker's main process, its largest pool process, the largest template
        sandbox process of a pool process."""
        now = {"api": 0, "worker_main": 0, "worker_pool": 0, "sandbox": 0}
        with contextlib.suppress(psutil.Error):
            # With several api processes the supervisor is small: the figure is the largest worker.
            now["api"] = max(process.memory_info().rss for process in self._api_processes())
        with contextlib.suppress(psutil.Error):
            now["worker_main"] = self.worker.memory_info().rss
            for child in self.worker.children():
                with contextlib.suppress(psutil.Error):
                    now["worker_pool"] = max(now["worker_pool"], child.memory_info().rss)
                    for sandbox in child.children():
                        with contextlib.suppress(psutil.Error):
                            now["sandbox"] = max(now["sandbox"], sandbox.memory_info().rss)
        return now

    def unique(self) -> dict[str, int]:
        """USS now (memory no other process shares: what the process really adds) of the api and of the
        largest worker pool process. Reads /proc/<pid>/smaps, so it is not sampled in the loop."""
        now = {"api": 0, "worker_pool": 0}
        with contextlib.suppress(psutil.Error):
            now["api"] = max(process.memory_full_info().uss for process in self._api_processes())
        with contextlib.suppress(psutil.Error):
            for child in self.worker.children():
                with contextlib.suppress(psutil.Error):
                    now["worker_pool"] = max(now["worker_pool"], child.memory_full_info().uss)
        return now

    def _api_processes(self) -> list[psutil.Process]:
        return self.api.children() or [self.api]

    def _loop(self) -> None:
        while not self._stop.is_set():
            for key, value in self.snapshot().items():
                self.peak[key] = max(self.peak[key], value)
            self._stop.wait(self.interval)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def cpu_seconds(pid: int, *, tree: bool = False) -> float:
    """CPU time (user + system) a process has used so far; with `tree`, plus all its live descendants."""
    root = psutil.Process(pid)
    total = 0.0
    for process in [root, *(root.children(recursive=True) if tree else [])]:
        with contextlib.suppress(psutil.Error):
            times = process.cpu_times()
            total += times.user + times.system
    return total


def postgres_cpu_seconds() -> float:
    """CPU time the PostgreSQL server processes alive now have used so far (every server on the machine:
    the bench's is the local one, or the embedded one it started)."""
    total = 0.0
    for process in psutil.process_iter(["name"]):
        if process.info["name"] in {"postgres", "postmaster"}:
            with contextlib.suppress(psutil.Error):
                times = process.cpu_times()
                total += times.user + times.system
    return total


def idle_cpu_seconds() -> float:
    """Seconds the machine's cores have spent idle so far, all cores together."""
    return float(psutil.cpu_times().idle)


# --- machine ------------------------------------------------------------------------------------------


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


async def _server_versions(stack: BenchStack) -> tuple[str, str]:
    connection = await asyncpg.connect(stack.dsn)
    try:
        postgres = str(await connection.fetchval("SHOW server_version"))
    finally:
        await connection.close()
    client = redis.Redis.from_url(stack.redis_url)
    try:
        info: Any = client.info("server")
        redis_version = str(info.get("redis_version", "?"))
    finally:
        client.close()
    return postgres, redis_version


# The machine counts as quiet when, before the bench started anything, the 1-minute load average was at most
# this per core, and, while it ran, processes other than its own used at most OTHER_WORK_QUIET of the
# machine's CPU.
QUIET_LOAD_PER_CORE = 0.25
OTHER_WORK_QUIET = 0.10
# The servers' processes serve the bench too (and perhaps others): not counted as other work.
SHARED_SERVERS = frozenset({"postgres", "postmaster", "redis-server", "pgbouncer"})


class OtherWork:
    """Samples, in a thread, the CPU time used by processes that are not the bench's (itself and its
    children) nor the servers', to tell how much of the machine other work took while the bench ran.

    Each process is counted from its first sample (from zero when it started after the bench did), so
    a process that came and went between two samples is missed: the share is a lower bound.
    """

    def __init__(self, interval: float = 2.0) -> None:
        self.interval = interval
        self._first: dict[tuple[int, float], float] = {}
        self._last: dict[tuple[int, float], float] = {}
        self._started = time.monotonic()
        self._start_time = time.time()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _sample(self) -> None:
        mine = {os.getpid(), *(child.pid for child in psutil.Process().children(recursive=True))}
        for process in psutil.process_iter(["pid", "name", "cmdline", "cpu_times", "create_time"]):
            info = process.info
            times = info["cpu_times"]
            if info["pid"] in mine or not info["cmdline"] or info["name"] in SHARED_SERVERS or times is None:
                continue  # the bench's, a server's, or a kernel thread
            key = (info["pid"], info["create_time"])
            used = times.user + times.system
            self._first.setdefault(key, used if info["create_time"] < self._start_time else 0.0)
            self._last[key] = used

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            with contextlib.suppress(psutil.Error, OSError):
                self._sample()

    def start(self) -> OtherWork:
        with contextlib.suppress(psutil.Error, OSError):
            self._sample()
        self._thread.start()
        return self

    def stop(self) -> None:
        """Take the last sample and stop sampling (again: nothing)."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._thread.join()
        with contextlib.suppress(psutil.Error, OSError):
            self._sample()

    @property
    def share(self) -> float:
        """Other work's CPU over the machine's (all cores) since the start, 0..1."""
        elapsed = max(time.monotonic() - self._started, 1e-9)
        used = sum(self._last[key] - self._first[key] for key in self._last)
        return max(0.0, used / (elapsed * (os.cpu_count() or 1)))


def conditions(load_at_start: tuple[float, float, float], other_work: float) -> str:
    """Whether the machine was quiet: the load before the bench started, and the share of the machine's
    CPU that other processes (not the bench's, not the servers') used while it ran."""
    cores = os.cpu_count() or 1
    seen = (
        f"load average {load_at_start[0]:.2f} on {cores} cores before the bench started; other processes "
        f"used at least {other_work:.0%} of the machine's CPU while it ran"
    )
    if load_at_start[0] <= QUIET_LOAD_PER_CORE * cores and other_work <= OTHER_WORK_QUIET:
        return f"quiet: {seen}"
    return (
        f"**measured under load**: {seen}; every figure, floors included, is slower and noisier than on a "
        "quiet machine, so read the ratios"
    )


def machine(
    stack: BenchStack | None, load_at_start: tuple[float, float, float], other_work: float
) -> list[tuple[str, str]]:
    """What the figures were measured on (and how busy it was with other work)."""
    memory = psutil.virtual_memory().total / 2**30
    postgres = redis_version = "not used in this run"
    origin = "—"
    if stack is not None:
        postgres, redis_version = asyncio.run(_server_versions(stack))
        origin = stack.servers.origin
    return [
        ("date", dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")),
        (
            "cpu",
            f"{os.cpu_count()} logical cores ({psutil.cpu_count(logical=False)} physical), {_cpu_model()}",
        ),
        ("memory", f"{memory:.1f} GiB"),
        ("os", platform.platform()),
        ("python", platform.python_version()),
        ("postgresql", f"{postgres} ({origin} server)"),
        ("redis", f"{redis_version} ({origin} server)"),
        (
            "load average (1 min)",
            f"{load_at_start[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end "
            "(includes the bench's own processes)",
        ),
        ("conditions", conditions(load_at_start, other_work)),
    ]
