"""Run throughput through PgBouncer in transaction mode vs straight to PostgreSQL, same run, same servers.

Two fresh workers (`bench.worker`, default settings): one on the bench database directly (the floor), one
through a real PgBouncer (`pool_mode = transaction`, 20 server connections) with
`AUTOMATIONS_DATABASE_POOLER=transaction`. Runs are fired through the suite's api while neither consumes
the run queue; then one of them drains the backlog, timed from its first message to the last run's
`finished_at`. Batches alternate between the two (the order too), so machine drift hits both. Details give
each worker's CPU per run and PgBouncer's own CPU per run.
"""

from __future__ import annotations

import asyncio

from bench.data import Hook, create_hooks
from bench.floors import RUN_QUEUE
from bench.machine import cpu_seconds
from bench.report import Row, median, ms, rate, ratio
from bench.runs import _finished_at, _fire_batch, _settle
from bench.stack import BenchStack, log
from tests.support.pgbouncer import PgBouncer, find_pgbouncer

POOL_SIZE = 20


def _batch(
    stack: BenchStack, hook: Hook, count: int, clients: int, node: str, pid: int
) -> tuple[float, float]:
    """The worker `node` drains a backlog of `count` runs: (runs per second, its CPU seconds per run)."""
    run_ids = asyncio.run(_fire_batch(stack, hook, count, clients))
    before = cpu_seconds(pid, tree=True)
    started = stack.resume_queue(RUN_QUEUE, node)
    last = asyncio.run(_finished_at(stack, run_ids, limit=max(120.0, count * 0.5)))
    _settle(stack)
    spent = cpu_seconds(pid, tree=True) - before
    stack.pause_queue(RUN_QUEUE, node)
    return count / (last - started), spent / count


def run(stack: BenchStack, warmup: int, rounds: int, batch: int, clients: int) -> list[Row]:
    """Runs/s of a worker through PgBouncer over runs/s of one straight to PostgreSQL."""
    binary = find_pgbouncer()
    if binary is None:
        return [
            Row("run throughput through PgBouncer", "skipped: pgbouncer is not installed (make pgbouncer)")
        ]
    stack.api()  # the runs are fired through the suite's api, straight to PostgreSQL
    main_worker = stack.worker_running
    if main_worker:
        stack.pause_queue(RUN_QUEUE)
    bouncer = PgBouncer(binary, stack.servers.admin_database_url, pool_size=POOL_SIZE)
    started = []
    try:
        (hook,) = asyncio.run(create_hooks(stack.database_url, 1))
        pooled_env = {
            "DATABASE_URL": bouncer.url(stack.database_name),
            "AUTOMATIONS_DATABASE_POOLER": "transaction",
            "AUTOMATIONS_DATABASE_DIRECT_URL": stack.database_url,
        }
        workers: dict[str, tuple[int, str]] = {}
        both = stack.extra_workers({"worker-direct": {}, "worker-pooled": pooled_env})
        for name, (process, node) in zip(("direct", "pooled"), both, strict=True):
            started.append(process)
            stack.pause_queue(RUN_QUEUE, node)
            workers[name] = (process.pid, node)
        log(f"pooler: warm-up of {warmup} runs on each worker")
        for pid, node in workers.values():
            _batch(stack, hook, warmup, clients, node, pid)
        rates: dict[str, list[float]] = {"direct": [], "pooled": []}
        cpus: dict[str, list[float]] = {"direct": [], "pooled": []}
        bouncer_cpu = 0.0
        log(f"pooler: {rounds} alternating batches of {batch} runs per worker")
        for index in range(rounds):
            for name in ("direct", "pooled") if index % 2 == 0 else ("pooled", "direct"):
                pid, node = workers[name]
                before = cpu_seconds(bouncer.process.pid, tree=False)
                per_second, cpu = _batch(stack, hook, batch, clients, node, pid)
                if name == "pooled":
                    bouncer_cpu += cpu_seconds(bouncer.process.pid, tree=False) - before
                rates[name].append(per_second)
                cpus[name].append(cpu)
    finally:
        for process in started:
            stack.stop_extra_worker(process)
        bouncer.stop()
        if main_worker:
            stack.consume(RUN_QUEUE)
    pooled, direct = median(rates["pooled"]), median(rates["direct"])
    return [
        Row(
            "run throughput through PgBouncer (transaction mode), 3 steps",
            rate(pooled, "runs"),
            f"{rate(direct, 'runs')} (a like worker straight to PostgreSQL)",
            ratio(1 / pooled, 1 / direct),
            f"{rounds} alternating batches x {batch} runs per worker after {warmup} warm-up; batch rates "
            f"pooled {', '.join(f'{v:,.0f}' for v in rates['pooled'])}/s, direct "
            f"{', '.join(f'{v:,.0f}' for v in rates['direct'])}/s; worker CPU per run pooled "
            f"{ms(median(cpus['pooled']))}, direct {ms(median(cpus['direct']))}; PgBouncer CPU "
            f"{ms(bouncer_cpu / (rounds * batch))} per run; PgBouncer default_pool_size {POOL_SIZE}",
            target="≤ 1.5x",
        )
    ]
