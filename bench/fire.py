"""Fire throughput: authenticated webhook fires per second through the real api, against raw INSERTs.

Each fire is a POST to `/api/v1/automations/{id}/fire` over loopback HTTP to the uvicorn server the bench
started (`automations api`), from N concurrent keep-alive clients; each creates a run row and sends its
wake-up to Redis after the commit. No worker runs meanwhile, so the figure is the intake alone; its runs
and their wake-ups are dropped afterwards. The floor is the same number of single-row INSERT
transactions from N asyncpg connections at once. Rounds of both alternate, so machine drift hits both
alike.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import asyncpg

from bench.data import Hook, create_hooks, webhook_body
from bench.floors import ensure_floor_table, insert_round
from bench.keepalive import KeepAliveClient
from bench.machine import cpu_seconds
from bench.report import Headline, Row, median, ms, percentile, rate, ratio, within
from bench.stack import BenchStack, log

P99_TARGET_SECONDS = 0.050  # a fire's p99 answer time, 16 clients → 16 webhooks


@dataclass
class Measured:
    rates: list[float]
    latencies: list[float]
    cpu: float = 0.0  # seconds of api CPU over the measured fires
    count: int = 0

    @property
    def rate(self) -> float:
        return median(self.rates)


async def fire_many(
    client: KeepAliveClient, hooks: list[Hook], count: int, concurrency: int, body: dict[str, Any]
) -> tuple[float, list[float], list[str]]:
    """`count` fires from `concurrency` clients (client i fires hook i mod len(hooks)); 202 each."""
    content = json.dumps(body).encode()
    remaining = iter(range(count))
    latencies: list[float] = []
    run_ids: list[str] = []

    async def one_client(index: int) -> None:
        hook = hooks[index % len(hooks)]
        headers = {"Authorization": f"Bearer {hook.token}", "Content-Type": "application/json"}
        for _ in remaining:
            started = time.perf_counter()
            response = await client.post(hook.path, content=content, headers=headers)
            latencies.append(time.perf_counter() - started)
            if response.status_code != 202:
                raise RuntimeError(f"fire answered {response.status_code}: {response.text[:300]}")
            run_ids.append(response.json()["run_id"])

    started = time.perf_counter()
    await asyncio.gather(*(one_client(index) for index in range(concurrency)))
    return time.perf_counter() - started, latencies, run_ids


def http_client(base_url: str, concurrency: int) -> KeepAliveClient:
    """`concurrency` keep-alive connections to the api; a lean client, so the clients firing on the
    bench's two cores take as little of them from the api as an outside load tool would."""
    return KeepAliveClient(base_url, concurrency)


async def _measure(
    stack: BenchStack,
    hooks_by_case: dict[str, list[Hook]],
    concurrency: int,
    warmup: int,
    rounds: int,
    per_round: int,
    api_pid: int,
) -> tuple[dict[str, Measured], Measured]:
    body = webhook_body(1)
    await ensure_floor_table(stack.dsn)
    cases = {name: Measured([], []) for name in hooks_by_case}
    floor = Measured([], [])
    pool = await asyncpg.create_pool(stack.dsn, min_size=concurrency, max_size=concurrency)
    try:
        async with http_client(stack.api_url, concurrency) as client:
            for hooks in hooks_by_case.values():
                await fire_many(client, hooks, warmup, concurrency, body)
            await insert_round(pool, warmup, concurrency, body)
            for _ in range(rounds):
                for name, hooks in hooks_by_case.items():
                    cpu = cpu_seconds(api_pid, tree=True)
                    elapsed, latencies, _ = await fire_many(client, hooks, per_round, concurrency, body)
                    cases[name].cpu += cpu_seconds(api_pid, tree=True) - cpu
                    cases[name].count += per_round
                    cases[name].rates.append(per_round / elapsed)
                    cases[name].latencies.extend(latencies)
                elapsed, latencies = await insert_round(pool, per_round, concurrency, body)
                floor.rates.append(per_round / elapsed)
                floor.latencies.extend(latencies)
    finally:
        await pool.close()
    return cases, floor


def api_processes(pid: int) -> int:
    """How many processes serve the api: `automations api` starts one per core under a supervisor
    (multiprocessing's resource tracker, also a child, serves nothing)."""
    import psutil

    children = [
        child
        for child in psutil.Process(pid).children()
        if "resource_tracker" not in " ".join(child.cmdline())
    ]
    return max(1, len(children))


def run(stack: BenchStack, concurrency: int, warmup: int, rounds: int, per_round: int) -> list[Row]:
    api = stack.api()
    assert not stack.worker_running, "the fire benchmark measures the intake alone"
    shared = asyncio.run(create_hooks(stack.database_url, 1))
    separate = asyncio.run(create_hooks(stack.database_url, concurrency))
    separate_name = f"fire throughput, {concurrency} clients → {concurrency} webhooks"
    cases = {f"fire throughput, {concurrency} clients → 1 webhook": shared, separate_name: separate}
    log(f"fire: {rounds} rounds of {per_round} fires per case, {concurrency} clients")
    measured, floor = asyncio.run(_measure(stack, cases, concurrency, warmup, rounds, per_round, api.pid))
    stack.drop_waiting_work()  # runs no worker will take, and their wake-ups
    rows = []
    floor_text = (
        f"{rate(floor.rate, 'INSERT tx')} (asyncpg, {concurrency} connections; "
        f"p50 {ms(percentile(floor.latencies, 50))}, p99 {ms(percentile(floor.latencies, 99))})"
    )
    for name, case in measured.items():
        headlines: tuple[Headline, ...] = ()
        if name == separate_name:
            p99 = percentile(case.latencies, 99)
            clients = "" if concurrency == 16 else f" ({concurrency} clients)"
            headlines = (
                Headline(
                    "fire",
                    f"{rate(case.rate, 'fires')}, p99 {ms(p99)}{clients}",
                    f"{ratio(1 / case.rate, 1 / floor.rate)} (floor {rate(floor.rate, 'INSERT tx')})",
                    within(1 / case.rate, 1 / floor.rate, 8) and p99 < P99_TARGET_SECONDS,
                ),
            )
        rows.append(
            Row(
                name,
                f"{rate(case.rate, 'fires')}; p50 {ms(percentile(case.latencies, 50))}, "
                f"p99 {ms(percentile(case.latencies, 99))}",
                floor_text,
                ratio(1 / case.rate, 1 / floor.rate),
                f"api CPU {ms(case.cpu / case.count)} per fire (all {api_processes(api.pid)} api processes); "
                f"HTTP/1.1 keep-alive; median of {rounds} rounds x {per_round} fires after {warmup} "
                "warm-up; no worker running",
                target="≤ 8x, p99 < 50 ms",
                headlines=headlines,
            )
        )
    stack.drop_waiting_work()
    return rows
