"""Run latency and run throughput on a real worker, and the memory of the api and the worker meanwhile.

Runs are fired through the api's webhook endpoint; their plan is three deterministic steps
(`transform_data`, `transform_data`, `notification`). The worker is `bench.worker`: the service's worker
with its default settings (every queue, prefork pool of two processes per core), plus the no-op tasks the
floors use, so both go through the same broker, queue, pool and concurrency.

- latency: fire → `succeeded` (the run's `finished_at`, written by the worker) of one run at a time;
  floor: one Celery no-op round trip plus three single-row INSERT transactions.
- throughput: a batch of runs is fired while the worker does not consume the run queue; then it does,
  and the batch is timed from the moment the worker takes its first message off the queue to the last
  run's `finished_at`. Floor: the same with no-op tasks (until the queue is empty and nothing is left
  unacknowledged). Batches of both alternate. After each batch the bench waits (untimed) for the
  terminal events' dispatch tasks on the `system` queue; the worker CPU per run includes them.
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from typing import Any

import asyncpg

from app.definitions import run_states
from bench import round_trips
from bench.data import Hook, create_hooks, webhook_body
from bench.fire import fire_many, http_client
from bench.floors import RUN_QUEUE, celery_round_trips, noop_drain_rate, sequential_write_latencies
from bench.machine import RssSampler, cpu_seconds
from bench.report import Headline, Row, median, mib, ms, percentile, rate, ratio, within
from bench.stack import BenchStack, log

TERMINAL = sorted(status.value for status in run_states.TERMINAL)
POLL_SECONDS = 0.002
_PROGRESS = (
    "SELECT count(*) FILTER (WHERE status = 'succeeded') AS ok,"
    " count(*) FILTER (WHERE status = ANY($2::text[])) AS done, max(finished_at) AS last"
    " FROM runs WHERE id = ANY($1::uuid[])"
)


async def _wait_for_run(connection: asyncpg.Connection, run_id: str, limit: float = 60) -> asyncpg.Record:
    deadline = time.monotonic() + limit
    while True:
        row = await connection.fetchrow(
            "SELECT status, created_at, started_at, finished_at FROM runs WHERE id = $1::uuid", run_id
        )
        if row is not None and row["status"] in TERMINAL:
            if row["status"] != "succeeded":
                raise RuntimeError(f"run {run_id} ended {row['status']}")
            return row
        if time.monotonic() > deadline:
            raise RuntimeError(f"run {run_id} did not finish within {limit:g} s")
        await asyncio.sleep(POLL_SECONDS)


async def _sequential_runs(stack: BenchStack, hook: Hook, warmup: int, count: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {"total": [], "http": [], "to_claim": [], "claim_to_end": []}
    connection = await asyncpg.connect(stack.dsn)
    try:
        async with http_client(stack.api_url, 1) as client:
            for index in range(warmup + count):
                fired_at = time.time()
                _, http, run_ids = await fire_many(client, [hook], 1, 1, webhook_body(index))
                row = await _wait_for_run(connection, run_ids[0])
                if index < warmup:
                    continue
                finished: datetime = row["finished_at"]
                samples["total"].append(finished.timestamp() - fired_at)
                samples["http"].append(http[0])
                samples["to_claim"].append((row["started_at"] - row["created_at"]).total_seconds())
                samples["claim_to_end"].append((finished - row["started_at"]).total_seconds())
    finally:
        await connection.close()
    return samples


def latency(stack: BenchStack, warmup: int, count: int) -> list[Row]:
    stack.api()
    stack.worker()
    (hook,) = asyncio.run(create_hooks(stack.database_url, 1))
    log(f"run latency: {count} sequential runs after {warmup} warm-up")
    _settle(stack)
    counts_before = round_trips.read(stack.home)
    samples = asyncio.run(_sequential_runs(stack, hook, warmup, count))
    _settle(stack)  # the terminal events' dispatch tasks too
    counts = round_trips.read(stack.home)
    per_run = {
        task: (counts.get(task, 0) - counts_before.get(task, 0)) / (warmup + count)
        for task in ("runs.execute", "events.dispatch")
    }
    noop_round_trips = celery_round_trips(stack, count, warmup)
    writes = asyncio.run(sequential_write_latencies(stack.dsn, count, warmup))
    floor = median(noop_round_trips) + 3 * median(writes)
    total = samples["total"]
    return [
        Row(
            "run latency, 3 steps, fire → succeeded",
            f"p50 {ms(percentile(total, 50))}, p99 {ms(percentile(total, 99))}",
            f"{ms(floor)} = Celery no-op round trip {ms(median(noop_round_trips))} "
            f"+ 3 x INSERT tx {ms(median(writes))}",
            ratio(percentile(total, 50), floor) + " (p50)",
            f"{count} sequential runs after {warmup} warm-up; medians: fire HTTP answer "
            f"{ms(median(samples['http']))}, row created → claimed {ms(median(samples['to_claim']))}, "
            f"claimed → succeeded {ms(median(samples['claim_to_end']))}",
            target="≤ 3x (p50)",
            headlines=(
                Headline(
                    "latency",
                    f"p50 {ms(percentile(total, 50))}",
                    f"{ratio(percentile(total, 50), floor)} (floor {ms(floor)})",
                    within(percentile(total, 50), floor, 3),
                ),
            ),
        ),
        Row(
            "database round trips, one 3-step run",
            f"{per_run['runs.execute']:,.1f} per run",
            "—",
            "—",
            f"counted by the worker (statements, BEGIN, COMMIT, ROLLBACK through SQLAlchemy; none of the "
            f"latter on autocommit connections, where the driver sends none) over the "
            f"{warmup + count} sequential runs, divided by runs; not included: the run's terminal event "
            f"dispatch, {per_run['events.dispatch']:,.1f} more per run (a dispatch task runs only when an "
            f"event trigger of the space listens)",
            target="≤ 10",
        ),
    ]


async def _fire_batch(stack: BenchStack, hook: Hook, count: int, concurrency: int) -> list[str]:
    async with http_client(stack.api_url, concurrency) as client:
        _, _, run_ids = await fire_many(client, [hook], count, concurrency, webhook_body(7))
    return run_ids


async def _finished_at(stack: BenchStack, run_ids: list[str], limit: float) -> float:
    """When the last of these runs finished (its `finished_at`), once all have succeeded."""
    connection = await asyncpg.connect(stack.dsn)
    deadline = time.monotonic() + limit
    try:
        while True:
            row = await connection.fetchrow(_PROGRESS, run_ids, list(TERMINAL))
            assert row is not None
            if row["done"] == len(run_ids):
                if row["ok"] != len(run_ids):
                    raise RuntimeError(f"{len(run_ids) - row['ok']} runs did not succeed")
                last: datetime = row["last"]
                return last.timestamp()
            if time.monotonic() > deadline:
                raise RuntimeError(f"{len(run_ids) - row['done']} runs still unfinished after {limit:g} s")
            await asyncio.sleep(0.05)
    finally:
        await connection.close()


async def _events_dispatched(stack: BenchStack) -> bool:
    connection = await asyncpg.connect(stack.dsn)
    try:
        waiting = await connection.fetchval("SELECT count(*) FROM domain_events WHERE dispatched_at IS NULL")
    finally:
        await connection.close()
    return not waiting


def _settle(stack: BenchStack, timeout: float = 120) -> None:
    """Wait (untimed) until the follow-up work of finished runs is done: events dispatched, queues empty."""
    deadline = time.monotonic() + timeout
    while not (
        stack.broker_idle("system")
        and stack.broker_idle(RUN_QUEUE)
        and asyncio.run(_events_dispatched(stack))
    ):
        if time.monotonic() > deadline:
            raise RuntimeError("the worker did not settle in time")
        time.sleep(0.1)


def _run_batch(stack: BenchStack, hook: Hook, count: int, concurrency: int) -> tuple[float, float]:
    """Runs per second the worker completes from a backlog of `count` waiting runs, and the worker's
    CPU seconds per run (every process of the worker, its template sandboxes included)."""
    stack.pause_queue(RUN_QUEUE)
    try:
        run_ids = asyncio.run(_fire_batch(stack, hook, count, concurrency))
    finally:
        cpu = cpu_seconds(stack.worker().pid, tree=True)
        started = stack.resume_queue(RUN_QUEUE)
    last = asyncio.run(_finished_at(stack, run_ids, limit=max(120.0, count * 0.5)))
    _settle(stack)  # the terminal events' dispatch counts as the runs' work
    cpu = cpu_seconds(stack.worker().pid, tree=True) - cpu
    return count / (last - started), cpu / count


def throughput(stack: BenchStack, warmup: int, batches: int, batch: int, concurrency: int) -> list[Row]:
    api = stack.api()
    worker = stack.worker()
    (hook,) = asyncio.run(create_hooks(stack.database_url, 1))
    _settle(stack)
    with RssSampler(api.pid, worker.pid) as sampler:
        idle = sampler.snapshot()
        log(f"run throughput: warm-up of {warmup} runs")
        _run_batch(stack, hook, warmup, concurrency)
        noop_drain_rate(stack, warmup)
        runs: list[float] = []
        cpus: list[float] = []
        noops: list[float] = []
        for index in range(batches):
            log(f"run throughput: batch {index + 1} of {batches}, {batch} runs, then {batch} no-ops")
            runs_per_second, cpu_per_run = _run_batch(stack, hook, batch, concurrency)
            runs.append(runs_per_second)
            cpus.append(cpu_per_run)
            noops.append(noop_drain_rate(stack, batch))
        unique = sampler.unique()
    peak = sampler.peak
    concurrency_text = _pool_text(worker.pid)
    return [
        Row(
            "run throughput, 3 steps",
            rate(median(runs), "runs"),
            f"{rate(median(noops), 'no-op tasks')} (same worker, queue and pool)",
            ratio(1 / median(runs), 1 / median(noops)),
            f"{batches} batches x {batch} runs = {batches * batch} runs after {warmup} warm-up, each "
            f"drained from a backlog; batch rates {', '.join(f'{value:,.0f}' for value in runs)}/s; "
            f"worker CPU {ms(median(cpus))} per run (all its processes); {concurrency_text}; "
            f"{stack.direct_claims_text()}",
            target="≤ 3x; worker CPU ≤ 8 ms per run",
            headlines=(
                Headline(
                    "throughput",
                    rate(median(runs), "runs"),
                    f"{ratio(1 / median(runs), 1 / median(noops))} "
                    f"(floor {rate(median(noops), 'no-op tasks')})",
                    within(1 / median(runs), 1 / median(noops), 3),
                ),
            ),
        ),
        Row(
            "memory, peak RSS during the throughput run",
            f"api {mib(peak['api'])}; worker pool process {mib(peak['worker_pool'])}",
            details=f"idle before it: api {mib(idle['api'])}, worker pool process "
            f"{mib(idle['worker_pool'])}; unique (USS) at the end: api {mib(unique['api'])}, "
            f"pool process {mib(unique['worker_pool'])} (the rest is shared with the worker's main "
            f"process); peaks of the worker main process {mib(peak['worker_main'])} and of a pool "
            f"process's template sandbox {mib(peak['sandbox'])}; psutil every 50 ms",
            target="api ≤ 120 MiB; pool process ≤ 150 MiB",
        ),
    ]


def _pool_text(worker_pid: int) -> str:
    import psutil

    children: list[Any] = psutil.Process(worker_pid).children()
    return f"worker defaults: prefork pool of {len(children)} processes"
