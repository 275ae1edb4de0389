"""Schedule ticks: how fast due triggers drain, whether the table's size matters, and a lone trigger's lag.

Automations and their every-minute schedule triggers are inserted in bulk with SQL (then ANALYZEd, as a
production table would be). Ticks run in-process exactly as beat's task runs them: batch after batch
(`TICK_BATCH` due triggers each), each batch in its own transaction through the real dispatcher, its
runs' wake-ups sent to Redis after its commit, until a batch comes back short. No worker runs
meanwhile; the runs and their wake-ups are dropped afterwards.

- drain: N triggers due the same minute (target: 10,000 in ≤ 15 s); then every one of them must have
  exactly one run for the slot (none missed, none doubled).
- table size: D due among 1,000 and among 100,000 schedule triggers; the ratio says whether the tick
  touches only due rows.
- lone trigger: one due trigger, the tick started at its slot; lag = slot → its run committed. Beat ticks
  every `AUTOMATIONS_BEAT_TICK_SECONDS` (5 s by default), which adds up to that much before a tick starts.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import asyncpg

from app.persistence.db import create_engine, create_sessionmaker
from app.persistence.transaction import transaction
from app.services.runs.limits import DispatchLimits
from app.services.triggers.schedules import TICK_BATCH, schedule_service
from bench.data import insert_schedules, new_space
from bench.report import Row, median, ms, percentile, ratio
from bench.stack import BenchStack, log

# What TriggerRepository.due_schedule_batch asks, for EXPLAIN.
_DUE_QUERY = (
    "SELECT id FROM automation_triggers WHERE type = 'schedule' AND next_fire_at <= $1 AND enabled IS true"
    " ORDER BY next_fire_at LIMIT $2 FOR UPDATE SKIP LOCKED"
)
_RUNS_PER_TRIGGER = (
    "SELECT count(*) FILTER (WHERE n = 1) AS once, count(*) FILTER (WHERE n > 1) AS more"
    " FROM (SELECT t.id, count(r.id) AS n FROM automation_triggers t"
    " LEFT JOIN runs r ON r.trigger_id = t.id"
    " WHERE t.id = ANY($1::uuid[]) GROUP BY t.id) AS per_trigger"
)


async def _drain(sessionmaker: object, stack: BenchStack, now: datetime) -> tuple[int, int]:
    """Tick as beat's task does until a batch comes back short: (triggers fired, batches)."""
    fired = batches = 0
    while True:
        async with transaction(sessionmaker, stack.send_job) as session:  # type: ignore[arg-type]
            report = await schedule_service.tick(session, now, DispatchLimits())
        fired += report.fired
        batches += 1
        if report.due < TICK_BATCH:
            return fired, batches


async def _measure(
    stack: BenchStack, burst: int, due: int, sizes: Sequence[int], warmup: int, ticks: int, lone: int
) -> dict[str, object]:
    engine = create_engine(stack.database_url, pool_size=2, application_name="automations-bench")
    sessionmaker = create_sessionmaker(engine)
    connection = await asyncpg.connect(stack.dsn)
    clock = datetime.now(UTC).replace(second=0, microsecond=0) + timedelta(minutes=1)
    out: dict[str, object] = {}
    try:
        space = await new_space(connection)
        # 1. a burst due the same minute
        burst_ids = await insert_schedules(connection, space, burst, clock)
        await connection.execute("ANALYZE automations; ANALYZE automation_triggers")
        clock += timedelta(minutes=1)
        slot = clock - timedelta(seconds=30)
        await connection.execute(
            "UPDATE automation_triggers SET next_fire_at = $1 WHERE id = ANY($2::uuid[])", slot, burst_ids
        )
        log(f"schedule: draining {burst:,} triggers due the same minute")
        started = time.perf_counter()
        fired, batches = await _drain(sessionmaker, stack, clock)
        out["burst_seconds"] = time.perf_counter() - started
        out["burst_batches"] = batches
        counts = await connection.fetchrow(_RUNS_PER_TRIGGER, burst_ids)  # new triggers: this slot's runs
        assert counts is not None
        out["burst_once"], out["burst_more"], out["burst_fired"] = counts["once"], counts["more"], fired
        # the burst's triggers move a year away: they are the table's bulk from here on
        await connection.execute(
            "UPDATE automation_triggers SET next_fire_at = $1 WHERE id = ANY($2::uuid[])",
            clock + timedelta(days=365),
            burst_ids,
        )
        # 2. D due among 1,000 and among 100,000
        due_ids = await insert_schedules(connection, space, due, clock)
        total = burst + due
        samples: dict[int, list[float]] = {}
        plans: dict[int, str] = {}
        for size in sizes:
            if size > total:
                log(f"schedule tick: inserting {size - total:,} more schedule triggers")
                await insert_schedules(connection, space, size - total, clock + timedelta(days=365))
                total = size
            await connection.execute("ANALYZE automations; ANALYZE automation_triggers; ANALYZE runs")
            plan = await connection.fetch("EXPLAIN " + _DUE_QUERY, clock, TICK_BATCH)
            plans[size] = " → ".join(row[0].strip().removeprefix("->  ").split("  (")[0] for row in plan[:3])
            samples[size] = []
            log(f"schedule tick: {due:,} due of {max(size, total):,}, {warmup} + {ticks} drains")
            for index in range(warmup + ticks):
                clock += timedelta(minutes=1)
                await connection.execute(
                    "UPDATE automation_triggers SET next_fire_at = $1 WHERE id = ANY($2::uuid[])",
                    clock - timedelta(seconds=30),
                    due_ids,
                )
                started = time.perf_counter()
                fired, _ = await _drain(sessionmaker, stack, clock)
                elapsed = time.perf_counter() - started
                if fired != due:
                    raise RuntimeError(f"the ticks fired {fired} of {due} due triggers")
                if index >= warmup:
                    samples[size].append(elapsed)
        out["samples"], out["plans"], out["table"] = samples, plans, total
        # 3. a lone due trigger: slot → its run committed, the tick started at the slot
        await connection.execute(
            "UPDATE automation_triggers SET next_fire_at = $1 WHERE id = ANY($2::uuid[])",
            clock + timedelta(days=365),
            due_ids,
        )
        lone_id = due_ids[0]
        lags: list[float] = []
        for _ in range(lone):
            clock += timedelta(minutes=1)
            await connection.execute(
                "UPDATE automation_triggers SET next_fire_at = $1 WHERE id = $2", clock, lone_id
            )
            started = time.perf_counter()
            fired, _ = await _drain(sessionmaker, stack, clock)
            lags.append(time.perf_counter() - started)
            if fired != 1:
                raise RuntimeError(f"the lone trigger's tick fired {fired}")
        out["lone"] = lags
    finally:
        await connection.close()
        await engine.dispose()
    return out


def run(
    stack: BenchStack,
    burst: int,
    due: int,
    sizes: Sequence[int],
    warmup: int,
    ticks: int,
    lone: int,
) -> list[Row]:
    assert not stack.worker_running, "the tick's wake-ups must not be taken by a worker"
    out = asyncio.run(_measure(stack, burst, due, sizes, warmup, ticks, lone))
    stack.drop_waiting_work()
    samples: dict[int, list[float]] = out["samples"]  # type: ignore[assignment]
    plans: dict[int, str] = out["plans"]  # type: ignore[assignment]
    burst_seconds: float = out["burst_seconds"]  # type: ignore[assignment]
    rows = [
        Row(
            f"schedule: {burst:,} triggers due the same minute",
            f"drained in {burst_seconds:,.2f} s ({ms(burst_seconds / burst)} per trigger)",
            "—",
            "—",
            target="≤ 15 s, none missed or doubled",
            details=f"{out['burst_batches']} batches of ≤ {TICK_BATCH}, each one transaction; "
            f"triggers with exactly one run: {out['burst_once']:,} of {burst:,}, "
            f"with more: {out['burst_more']}",
        )
    ]
    first = median(samples[sizes[0]])
    for size in sizes:
        tick = median(samples[size])
        rows.append(
            Row(
                f"schedule tick, {due:,} due of {size:,} schedule triggers",
                f"{ms(tick)} per drain ({ms(tick / due)} per fired trigger)",
                "—",
                "—" if size == sizes[0] else f"{ratio(tick, first)} the {sizes[0]:,}-trigger drain's time",
                f"median of {ticks} drains after {warmup} warm-up; due query plan: {plans[size]}",
            )
        )
    lags: list[float] = out["lone"]  # type: ignore[assignment]
    rows.append(
        Row(
            "schedule: lone trigger lag, slot → run committed",
            f"p50 {ms(percentile(lags, 50))}, p99 {ms(percentile(lags, 99))}",
            "—",
            "—",
            target="p99 < 1 s",
            details=f"{len(lags)} slots, each tick started at the slot; beat's tick interval "
            "(5 s by default, AUTOMATIONS_BEAT_TICK_SECONDS) comes on top",
        )
    )
    return rows
