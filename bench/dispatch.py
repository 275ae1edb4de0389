"""Event dispatch through the database: one `event_service.dispatch` of an event that matches one of
10 / 1,000 / 10,000 event triggers of its type in its space.

The in-process `events` benchmark times the matching loop alone; this one adds what the service does
around it: lock the event row, read the space's event trigger generation, match through the service's
filter index (built on the first dispatch, reused while the generation holds), load the matched
triggers of active automations, fire the one match through the dispatcher and record `consumed_by`.
Automations and triggers are inserted in bulk with
SQL (then ANALYZEd). Each event is published in its own transaction first (untimed), then dispatched in
one transaction as the worker's `events.dispatch` task does, sending the run's wake-up after the commit.
No worker runs meanwhile; the runs and their wake-ups are dropped afterwards. The figure is the ratio
between sizes: matching should touch only the triggers that can match.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence

import asyncpg

from app.jobs import Job
from app.persistence.db import create_engine, create_sessionmaker
from app.persistence.transaction import transaction
from app.services.runs.limits import DispatchLimits
from app.services.triggers.events import event_service
from bench.data import EVENT_TYPE, event_payload, insert_listeners, new_space
from bench.report import Row, median, ms, ratio
from bench.stack import BenchStack, log

MAX_CHAIN_DEPTH = 10


def _drop(_: Job) -> None:
    """Publishing enqueues the event's dispatch task: the bench dispatches it itself instead."""


async def _measure(
    stack: BenchStack, sizes: Sequence[int], warmup: int, repeats: int
) -> dict[int, list[float]]:
    engine = create_engine(stack.database_url, pool_size=2, application_name="automations-bench")
    sessionmaker = create_sessionmaker(engine)
    connection = await asyncpg.connect(stack.dsn)
    chooser = random.Random(1)
    samples: dict[int, list[float]] = {}
    try:
        space = await new_space(connection)
        total = 0
        for size in sizes:
            await insert_listeners(connection, space, total, size - total)
            total = size
            await connection.execute("ANALYZE automations; ANALYZE automation_triggers")
            log(f"event dispatch: {size:,} candidate triggers, {warmup} + {repeats} events")
            samples[size] = []
            for index in range(warmup + repeats):
                async with transaction(sessionmaker, _drop) as session:
                    event = await event_service.publish(
                        session, space, EVENT_TYPE, event_payload(chooser.randrange(size)), "bench"
                    )
                started = time.perf_counter()
                async with transaction(sessionmaker, stack.send_job) as session:
                    report = await event_service.dispatch(
                        session, event.id, limits=DispatchLimits(), max_chain_depth=MAX_CHAIN_DEPTH
                    )
                elapsed = time.perf_counter() - started
                if report is None or report.matched != 1 or report.fired != 1:
                    raise RuntimeError(f"the event should fire exactly one trigger: {report}")
                if index >= warmup:
                    samples[size].append(elapsed)
    finally:
        await connection.close()
        await engine.dispose()
    return samples


def run(stack: BenchStack, sizes: Sequence[int], warmup: int, repeats: int) -> list[Row]:
    assert not stack.worker_running, "the dispatch's wake-ups must not be taken by a worker"
    samples = asyncio.run(_measure(stack, sizes, warmup, repeats))
    stack.drop_waiting_work()
    first = median(samples[sizes[0]])
    rows = []
    for size in sizes:
        value = median(samples[size])
        rows.append(
            Row(
                f"event dispatch via the database, {size:,} candidate triggers",
                f"{ms(value)} per event",
                "—",
                "—"
                if size == sizes[0]
                else f"{ratio(value, first)} the {sizes[0]:,}-trigger dispatch's time",
                f"one event matching one trigger, fired through the dispatcher; median of {repeats} "
                f"after {warmup} warm-up",
                target="—" if size == sizes[0] else f"≤ 2x the {sizes[0]:,}-trigger time",
            )
        )
    return rows
