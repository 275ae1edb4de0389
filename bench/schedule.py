"""Schedule tick: one `schedule_service.tick` with D due triggers among 1,000 and among 100,000.

Automations and their every-minute schedule triggers are inserted in bulk with SQL (then ANALYZEd, as a
production table would be). The tick runs in-process exactly as beat's task runs it: in one transaction,
through the real dispatcher (one run row per due trigger), and after the commit it sends each run's
wake-up to Redis. No worker runs meanwhile; the wake-ups are purged afterwards.

Each tick gets its own clock (`now` one minute later than the previous tick's), and before it the due
triggers' `next_fire_at` is set back to 30 s before that clock (untimed), so every tick fires D new slots.
The figure is the ratio between the two table sizes: the tick should touch only due rows.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import asyncpg

from app.persistence.db import create_engine, create_sessionmaker
from app.persistence.transaction import transaction
from app.services.dispatch import DispatchLimits
from app.services.schedules import TICK_BATCH, schedule_service
from bench.data import insert_schedules, new_space
from bench.report import Row, median, ms, ratio
from bench.stack import BenchStack, log

# What TriggerRepository.due_schedules asks, for EXPLAIN.
_DUE_QUERY = (
    "SELECT * FROM automation_triggers WHERE type = 'schedule' AND next_fire_at <= $1 AND enabled IS true"
    " ORDER BY next_fire_at LIMIT $2 FOR UPDATE SKIP LOCKED"
)


async def _measure(
    stack: BenchStack, due: int, sizes: Sequence[int], warmup: int, ticks: int
) -> tuple[dict[int, list[float]], dict[int, str]]:
    engine = create_engine(stack.database_url, pool_size=2, application_name="automations-bench")
    sessionmaker = create_sessionmaker(engine)
    connection = await asyncpg.connect(stack.dsn)
    clock = datetime.now(UTC).replace(second=0, microsecond=0) + timedelta(minutes=1)
    samples: dict[int, list[float]] = {}
    plans: dict[int, str] = {}
    try:
        space = await new_space(connection)
        due_ids = await insert_schedules(connection, space, due, clock)
        total = due
        for size in sizes:
            if size > total:
                log(f"schedule tick: inserting {size - total:,} more schedule triggers")
                await insert_schedules(connection, space, size - total, clock + timedelta(days=365))
                total = size
            await connection.execute("ANALYZE automations; ANALYZE automation_triggers; ANALYZE runs")
            plan = await connection.fetch("EXPLAIN " + _DUE_QUERY, clock, TICK_BATCH)
            plans[size] = " → ".join(row[0].strip().removeprefix("->  ").split("  (")[0] for row in plan[:3])
            samples[size] = []
            log(f"schedule tick: {due:,} due of {size:,}, {warmup} + {ticks} ticks")
            for index in range(warmup + ticks):
                clock += timedelta(minutes=1)
                await connection.execute(
                    "UPDATE automation_triggers SET next_fire_at = $1 WHERE id = ANY($2::uuid[])",
                    clock - timedelta(seconds=30),
                    due_ids,
                )
                started = time.perf_counter()
                async with transaction(sessionmaker, stack.send_job) as session:
                    report = await schedule_service.tick(session, clock, DispatchLimits())
                elapsed = time.perf_counter() - started
                if report.fired != due:
                    raise RuntimeError(f"the tick fired {report.fired} of {due} due triggers: {report}")
                if index >= warmup:
                    samples[size].append(elapsed)
    finally:
        await connection.close()
        await engine.dispose()
    return samples, plans


def run(stack: BenchStack, due: int, sizes: Sequence[int], warmup: int, ticks: int) -> list[Row]:
    assert not stack.worker_running, "the tick's wake-ups must not be taken by a worker"
    assert due <= TICK_BATCH, "one tick handles at most TICK_BATCH due triggers"
    samples, plans = asyncio.run(_measure(stack, due, sizes, warmup, ticks))
    stack.purge_broker()
    rows = []
    first = median(samples[sizes[0]])
    for size in sizes:
        tick = median(samples[size])
        rows.append(
            Row(
                f"schedule tick, {due:,} due of {size:,} schedule triggers",
                f"{ms(tick)} per tick ({ms(tick / due)} per fired trigger)",
                "—",
                "—" if size == sizes[0] else f"{ratio(tick, first)} the {sizes[0]:,}-trigger tick's time",
                f"median of {ticks} ticks after {warmup} warm-up; due query plan: {plans[size]}",
            )
        )
    return rows
