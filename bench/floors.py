"""The floors: what the same servers do with no service code in the way.

- a single-row INSERT transaction with asyncpg (alone, and at a given concurrency);
- a Celery no-op task on the bench worker: one round trip (send, wait for its result), and how many per
  second the worker's pool gets through when a backlog waits.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import asyncpg

from bench.noop_tasks import NOOP, NOOP_WITH_RESULT
from bench.stack import BenchStack

FLOOR_TABLE = "bench_floor_writes"
RUN_QUEUE = "runs.fast"


async def ensure_floor_table(dsn: str) -> None:
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute(
            f"CREATE TABLE IF NOT EXISTS {FLOOR_TABLE} ("
            " id uuid PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), payload jsonb NOT NULL)"
        )
    finally:
        await connection.close()


_INSERT = f"INSERT INTO {FLOOR_TABLE} (id, payload) VALUES ($1, $2::jsonb)"  # noqa: S608 (a constant)


async def insert_round(
    pool: asyncpg.Pool, count: int, concurrency: int, payload: dict[str, Any]
) -> tuple[float, list[float]]:
    """`count` single-row INSERT transactions (autocommit) from `concurrency` connections at once."""
    body = json.dumps(payload)
    remaining = iter(range(count))
    latencies: list[float] = []

    async def client() -> None:
        async with pool.acquire() as connection:
            for _ in remaining:
                started = time.perf_counter()
                await connection.execute(_INSERT, uuid.uuid4(), body)
                latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(concurrency)))
    return time.perf_counter() - started, latencies


async def sequential_write_latencies(dsn: str, count: int, warmup: int) -> list[float]:
    """Latency of one single-row INSERT transaction, one after the other on one connection."""
    await ensure_floor_table(dsn)
    connection = await asyncpg.connect(dsn)
    samples: list[float] = []
    body = json.dumps({"step": "shape", "output": {"n": 1, "title": "Build 1 of acme/api"}})
    try:
        for index in range(warmup + count):
            started = time.perf_counter()
            await connection.execute(_INSERT, uuid.uuid4(), body)
            if index >= warmup:
                samples.append(time.perf_counter() - started)
    finally:
        await connection.close()
    return samples


def celery_round_trips(stack: BenchStack, count: int, warmup: int) -> list[float]:
    """Send a no-op to the run queue and wait for its result, one after the other."""
    samples: list[float] = []
    for index in range(warmup + count):
        started = time.perf_counter()
        stack.celery.send_task(NOOP_WITH_RESULT, queue=RUN_QUEUE).get(timeout=30)
        if index >= warmup:
            samples.append(time.perf_counter() - started)
    return samples


def noop_drain_rate(stack: BenchStack, count: int, timeout: float = 120.0) -> float:
    """No-op tasks per second the worker gets through when `count` of them wait on the run queue."""
    stack.pause_queue(RUN_QUEUE)
    try:
        for _ in range(count):
            stack.celery.send_task(NOOP, queue=RUN_QUEUE)
    finally:
        started = stack.resume_queue(RUN_QUEUE)
    deadline = time.monotonic() + timeout
    while not stack.broker_idle(RUN_QUEUE):
        if time.monotonic() > deadline:
            raise RuntimeError("the worker did not get through the no-op tasks in time")
        time.sleep(0.001)
    return count / (time.time() - started)
