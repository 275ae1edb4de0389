"""Durable waits on a real worker: what a thousand waiting runs cost the others, and how late a due
wait resumes.

- 3-step run latency (fire → succeeded, one run at a time) with no waiting run, then with 1,000 runs
  waiting (each with an open time wait a day away): the ratio of the medians. Waiting runs hold no
  worker and no slot, so the ratio should stay near 1.
- wake-up lag: runs whose only step is `wait` for PT1S, fired one after another; the lag of each is
  its wait's due time → the wait step's end (the tick that finds it due, the wake, the broker, the
  claim and the re-entry). The wait tick is driven here every `TICK_SECONDS` (as beat would), so the
  lag includes up to one tick period by construction.

Floor of the ratio: 1 (the same runs without the waiting ones, measured in the same run).
"""

from __future__ import annotations

import asyncio
import copy
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from app.persistence.db import create_engine, create_sessionmaker
from app.persistence.transaction import transaction
from app.services.runs.limits import DispatchLimits
from app.services.runs.waking import waker
from bench.data import THREE_STEPS, Hook, create_hooks, webhook_body
from bench.fire import fire_many, http_client
from bench.report import Row, median, ms, percentile, ratio
from bench.runs import _sequential_runs, _settle
from bench.stack import BenchStack, log

TICK_SECONDS = 0.5
POLL_SECONDS = 0.01
WAITING_RUNS = 1_000
_WAIT_ONE_SECOND: dict[str, Any] = {
    **copy.deepcopy(THREE_STEPS),
    "name": "Bench: wait a second",
    "plan": [{"step_id": "pause", "action": "wait", "config": {"for": "PT1S"}}],
}


async def _park_waiting(dsn: str, automation_id: str, count: int) -> None:
    """`count` runs of the automation, waiting on time waits a day away (rows written directly)."""
    connection = await asyncpg.connect(dsn)
    try:
        space_id, definition = await connection.fetchrow(
            "SELECT space_id, definition FROM automations WHERE id = $1::uuid", automation_id
        )
        due = datetime.now(UTC) + timedelta(days=1)
        runs = [(uuid.uuid4(),) for _ in range(count)]
        await connection.executemany(
            "INSERT INTO runs (id, space_id, automation_id, automation_version, definition, status, queue,"
            " trigger_type, trigger_payload, inputs, attempt, chain_depth, cost_usd, cancel_requested)"
            " VALUES ($1, $2, $3::uuid, 1, $4, 'waiting', 'runs.fast', 'manual', '{}', '{}', 1, 0, 0, false)",
            [(run_id, space_id, automation_id, definition) for (run_id,) in runs],
        )
        await connection.executemany(
            "INSERT INTO run_waits (id, space_id, run_id, path, kind, due_at)"
            " VALUES ($1, $2, $3, 'pause', 'time', $4)",
            [(uuid.uuid4(), space_id, run_id, due) for (run_id,) in runs],
        )
    finally:
        await connection.close()


async def _ticking(stack: BenchStack, stop: asyncio.Event) -> None:
    """The wait tick, as beat runs it, every `TICK_SECONDS`; its wake-ups go to the bench's broker."""
    engine = create_engine(stack.database_url, pool_size=1, application_name="automations-bench")
    sessionmaker = create_sessionmaker(engine)
    try:
        while not stop.is_set():
            async with transaction(sessionmaker, stack.send_job) as session:
                await waker.tick(session, datetime.now(UTC), DispatchLimits())
            await asyncio.sleep(TICK_SECONDS)
    finally:
        await engine.dispose()


async def _lags(stack: BenchStack, hook: Hook, count: int) -> list[float]:
    stop = asyncio.Event()
    ticker = asyncio.create_task(_ticking(stack, stop))
    connection = await asyncpg.connect(stack.dsn)
    lags: list[float] = []
    try:
        async with http_client(stack.api_url, 1) as client:
            for index in range(count):
                _, _, run_ids = await fire_many(client, [hook], 1, 1, webhook_body(index))
                deadline = time.monotonic() + 60
                while True:
                    row = await connection.fetchrow(
                        "SELECT w.due_at, s.finished_at FROM run_waits w JOIN run_steps s"
                        " ON s.run_id = w.run_id AND s.step_id = 'pause' AND s.status = 'succeeded'"
                        " WHERE w.run_id = $1::uuid",
                        run_ids[0],
                    )
                    if row is not None:
                        lags.append((row["finished_at"] - row["due_at"]).total_seconds())
                        break
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"run {run_ids[0]} did not resume within 60 s")
                    await asyncio.sleep(POLL_SECONDS)
    finally:
        stop.set()
        await ticker
        await connection.close()
    return lags


def run(stack: BenchStack, warmup: int, count: int, lag_runs: int) -> list[Row]:
    stack.api()
    stack.worker()
    hook, parked = asyncio.run(create_hooks(stack.database_url, 2))
    (waiter,) = asyncio.run(create_hooks(stack.database_url, 1, _WAIT_ONE_SECOND))
    log(f"waits: {count} sequential 3-step runs with 0, then {WAITING_RUNS} waiting runs")
    _settle(stack)
    alone = asyncio.run(_sequential_runs(stack, hook, warmup, count))["total"]
    asyncio.run(_park_waiting(stack.dsn, parked.automation_id, WAITING_RUNS))
    crowded = asyncio.run(_sequential_runs(stack, hook, warmup, count))["total"]
    log(f"waits: wake-up lag of {lag_runs} PT1S waits")
    lags = asyncio.run(_lags(stack, waiter, lag_runs))
    return [
        Row(
            f"run latency, 3 steps, with {WAITING_RUNS:,} runs waiting",
            f"p50 {ms(median(crowded))}, p99 {ms(percentile(crowded, 99))}",
            f"{ms(median(alone))} = the same with none waiting (p50)",
            ratio(median(crowded), median(alone)) + " (p50)",
            f"{count} sequential runs after {warmup} warm-up, each way; the waiting runs hold no worker",
            target="≤ 1.2x (p50)",
        ),
        Row(
            "wake-up lag, due wait → its step ended",
            f"p50 {ms(percentile(lags, 50))}, p99 {ms(percentile(lags, 99))}",
            f"{ms(TICK_SECONDS)} tick period",
            ratio(percentile(lags, 50), TICK_SECONDS) + " (p50)",
            f"{lag_runs} runs waiting PT1S one after another; the wait tick every {TICK_SECONDS:g} s "
            "(beat's default is 1 s), so up to one period is by construction",
            target="≤ 2 tick periods (p50)",
        ),
    ]
