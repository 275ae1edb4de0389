"""Outside load: runs completed per second while keep-alive clients fire at the stack `make run` starts.

`make run` (`automations dev`) starts the api (one uvicorn process per core, its CPU priority lowered by
`AUTOMATIONS_API_CPU_NICE`=10 so that under overload runs already accepted finish first), a worker with
its default pool of two processes per core (at most four there: 4 on the 2-core machine) and beat. The
bench's stack is that api and `bench.worker` (the same worker with its default pool); beat is left out,
as nothing here is scheduled.
N clients (16 in the full run), each on its own keep-alive HTTP/1.1 connection, fire one active 3-step
webhook automation as fast as it answers for a fixed time, while the worker runs what they fire. The
figure is the runs that finished (`finished_at`) inside that window per second of it, beside the fires
per second the api took meanwhile; the runs still waiting when the window closed are the backlog, and
are left to finish (untimed) so a failed run cannot hide. The floor: no-op tasks per second through the
same worker, queue and pool (drained from a backlog before and after the window; their median).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass

import asyncpg
import psutil

from app.cli import DEV_API_CPU_NICE
from bench.data import Hook, create_hooks, webhook_body
from bench.fire import http_client
from bench.floors import RUN_QUEUE, noop_drain_rate
from bench.keepalive import KeepAliveClient
from bench.machine import cpu_seconds, idle_cpu_seconds, postgres_cpu_seconds
from bench.report import Headline, Row, median, ms, percentile, rate, ratio
from bench.stack import BenchStack, log
from tests.support.processes import ServiceProcess

TARGET_RUNS_PER_SECOND = 400.0
_FINISHED_IN = (
    "SELECT count(*) FROM runs WHERE id = ANY($1::uuid[]) AND status = 'succeeded'"
    " AND finished_at >= to_timestamp($2) AND finished_at < to_timestamp($3)"
)
_PROGRESS = (
    "SELECT count(*) FILTER (WHERE status = 'succeeded') AS ok,"
    " count(*) FILTER (WHERE finished_at IS NOT NULL) AS done FROM runs WHERE id = ANY($1::uuid[])"
)


async def _fire_for(
    client: KeepAliveClient, hook: Hook, clients: int, seconds: float
) -> tuple[list[float], list[str]]:
    """Every client fires `hook` one request after another until `seconds` have passed; the answer
    times and the run ids (each fire must answer 202)."""
    content = json.dumps(webhook_body(1)).encode()
    headers = {"Authorization": f"Bearer {hook.token}", "Content-Type": "application/json"}
    latencies: list[float] = []
    run_ids: list[str] = []
    end = time.monotonic() + seconds

    async def one_client() -> None:
        while time.monotonic() < end:
            started = time.perf_counter()
            response = await client.post(hook.path, content=content, headers=headers)
            latencies.append(time.perf_counter() - started)
            if response.status_code != 202:
                raise RuntimeError(f"fire answered {response.status_code}: {response.text[:300]}")
            run_ids.append(response.json()["run_id"])

    await asyncio.gather(*(one_client() for _ in range(clients)))
    return latencies, run_ids


@dataclass
class Window:
    """A timed stretch of firing: its start and end (`time.time()` clock, as PostgreSQL's), the fires'
    answer times and the runs they created."""

    started: float
    ended: float
    latencies: list[float]
    run_ids: list[str]

    @property
    def seconds(self) -> float:
        return self.ended - self.started


async def _window(url: str, hook: Hook, clients: int, seconds: float) -> Window:
    async with http_client(url, clients) as client:
        started = time.time()
        latencies, run_ids = await _fire_for(client, hook, clients, seconds)
        return Window(started, time.time(), latencies, run_ids)


async def _count_finished(stack: BenchStack, run_ids: list[str], started: float, ended: float) -> int:
    connection = await asyncpg.connect(stack.dsn)
    try:
        return int(await connection.fetchval(_FINISHED_IN, run_ids, started, ended))
    finally:
        await connection.close()


async def _all_finished(stack: BenchStack, run_ids: list[str], limit: float) -> None:
    """Wait until every run has finished; any that did not succeed is an error."""
    connection = await asyncpg.connect(stack.dsn)
    deadline = time.monotonic() + limit
    try:
        while True:
            row = await connection.fetchrow(_PROGRESS, run_ids)
            assert row is not None
            if row["done"] == len(run_ids):
                if row["ok"] != len(run_ids):
                    raise RuntimeError(f"{len(run_ids) - row['ok']} runs did not succeed")
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{len(run_ids) - row['done']} runs still unfinished after {limit:g} s")
            await asyncio.sleep(0.1)
    finally:
        await connection.close()


def _settle(stack: BenchStack, timeout: float = 120) -> None:
    """Wait (untimed) until the worker has nothing left: no run or system message waiting or held."""
    deadline = time.monotonic() + timeout
    while not (stack.broker_idle(RUN_QUEUE) and stack.broker_idle("system")):
        if time.monotonic() > deadline:
            raise RuntimeError("the worker did not settle in time")
        time.sleep(0.1)


def run(stack: BenchStack, clients: int, warmup_seconds: float, seconds: float, noops: int) -> list[Row]:
    """The outside load test's row: runs/s completed and fires/s taken in a window of `seconds`."""
    # The api as `automations dev` starts it: at its lower CPU priority (the other benches' api has none).
    api, url = stack.extra_api("dev-api", {"AUTOMATIONS_API_CPU_NICE": str(DEV_API_CPU_NICE)})
    try:
        return _measure(stack, api, url, clients, warmup_seconds, seconds, noops)
    finally:
        stack.stop_extra_api(api)


def _measure(
    stack: BenchStack,
    api: ServiceProcess,
    url: str,
    clients: int,
    warmup_seconds: float,
    seconds: float,
    noops: int,
) -> list[Row]:
    worker = stack.worker()
    (hook,) = asyncio.run(create_hooks(stack.database_url, 1))
    log(f"load: {clients} clients fire for {warmup_seconds:g} s (warm-up), then {seconds:g} s measured")
    warm = asyncio.run(_window(url, hook, clients, warmup_seconds))
    asyncio.run(_all_finished(stack, warm.run_ids, limit=120 + len(warm.run_ids) * 0.05))
    _settle(stack)
    floors = [noop_drain_rate(stack, noops)]
    api_cpu, worker_cpu = cpu_seconds(api.pid, tree=True), cpu_seconds(worker.pid, tree=True)
    postgres_cpu, idle = postgres_cpu_seconds(), idle_cpu_seconds()
    window = asyncio.run(_window(url, hook, clients, seconds))
    api_cpu = cpu_seconds(api.pid, tree=True) - api_cpu
    # Where the machine's CPU went meanwhile, in cores: whether it was saturated, and by whom.
    shares = {
        "api": api_cpu,
        "worker": cpu_seconds(worker.pid, tree=True) - worker_cpu,
        "PostgreSQL": postgres_cpu_seconds() - postgres_cpu,
        "idle": idle_cpu_seconds() - idle,
    }
    fired = len(window.run_ids)
    if not fired:
        raise RuntimeError("no fire was answered in the measured window")
    finished = asyncio.run(_count_finished(stack, window.run_ids, window.started, window.ended))
    log(f"load: {fired} fired, {finished} finished in the window; letting the backlog finish")
    asyncio.run(_all_finished(stack, window.run_ids, limit=120 + fired * 0.05))
    _settle(stack)
    worker_cpu = cpu_seconds(worker.pid, tree=True) - worker_cpu
    floors.append(noop_drain_rate(stack, noops))
    runs_per_second = finished / window.seconds
    fires_per_second = fired / window.seconds
    floor = median(floors)
    versus_floor = ratio(1 / runs_per_second, 1 / floor) if finished else "—"
    return [
        Row(
            f"outside load: {clients} keep-alive clients → one 3-step webhook automation, worker running",
            f"{rate(runs_per_second, 'runs')} completed; {rate(fires_per_second, 'fires')} taken",
            f"{rate(floor, 'no-op tasks')} (same worker, queue and pool)",
            versus_floor,
            f"{window.seconds:,.1f} s window after {warmup_seconds:g} s warm-up; {fired:,} fired, "
            f"{finished:,} finished in the window, {fired - finished:,} still waiting or running at its end "
            f"(all then succeeded); fire answer p50 {ms(percentile(window.latencies, 50))}, "
            f"p99 {ms(percentile(window.latencies, 99))}; "
            f"api CPU {ms(api_cpu / fired)} per fire, worker CPU {ms(worker_cpu / fired)} "
            f"per run (all processes); cores used in the window (of {psutil.cpu_count()}): "
            f"{', '.join(f'{name} {spent / window.seconds:.2f}' for name, spent in shares.items())}; "
            f"floor: {noops} no-ops drained before and after the window "
            f"({', '.join(f'{value:,.0f}' for value in floors)}/s); beat not running; the api at "
            f"`automations dev`'s CPU priority (AUTOMATIONS_API_CPU_NICE={DEV_API_CPU_NICE})",
            target=f"≥ {TARGET_RUNS_PER_SECOND:g} runs/s",
            headlines=(
                Headline(
                    "load",
                    f"{rate(runs_per_second, 'runs')} completed, {rate(fires_per_second, 'fires')}"
                    + ("" if clients == 16 else f" ({clients} clients)"),
                    f"{versus_floor} (floor {rate(floor, 'no-op tasks')})",
                    runs_per_second >= TARGET_RUNS_PER_SECOND,
                ),
            ),
        )
    ]
