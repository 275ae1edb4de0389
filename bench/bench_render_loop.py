"""Render-heavy runs on one event loop: the blocking render against the awaitable one.

A worker process runs each claim on one event loop, beside the lease heartbeat; the API serves every
request on one. This figure runs simulated runs concurrently, each rendering a step config
(`bench_templating.CONFIG`, 10 templated fields) per step with a short awaited I/O pause between
steps, while a heartbeat task asks to wake up every `TICK_MS` ms. Two workloads: a typical context
(20 list items) and a render-heavy one (2,000 items looped over). It reports the wall time of the
batch and how late the heartbeat woke up (median and worst): with the blocking `render_value` the
loop waits on the sandbox pipe, with `arender_value` it does not (and both sandbox children work).

    .venv/bin/python -m bench.bench_render_loop [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from app.engine.templating import arender_value, render_value
from app.engine.templating.pool import default_pool
from bench.bench_templating import CONFIG, _context

TICK_MS = 5.0
IO_PAUSE_SECONDS = 0.001

Render = Callable[[dict[str, Any], dict[str, Any]], Awaitable[Any]]


async def _blocking(config: dict[str, Any], context: dict[str, Any]) -> Any:
    return render_value(config, context)


async def _awaitable(config: dict[str, Any], context: dict[str, Any]) -> Any:
    return await arender_value(config, context)


async def _batch(render: Render, runs: int, steps: int, items: int = 20) -> tuple[float, list[float]]:
    context = _context(items=items)
    lateness: list[float] = []
    done = asyncio.Event()

    async def heartbeat() -> None:
        while not done.is_set():
            asked = time.perf_counter()
            await asyncio.sleep(TICK_MS / 1000)
            lateness.append((time.perf_counter() - asked) * 1000 - TICK_MS)

    async def one_run() -> None:
        for _ in range(steps):
            await render(CONFIG, context)
            await asyncio.sleep(IO_PAUSE_SECONDS)

    beat = asyncio.create_task(heartbeat())
    started = time.perf_counter()
    await asyncio.gather(*(one_run() for _ in range(runs)))
    elapsed = time.perf_counter() - started
    done.set()
    await beat
    return elapsed, lateness


WORKLOADS = (("typical", 20, 1.0), ("render-heavy", 2000, 0.2))
"""(name, list items in the context, share of the steps) per workload."""
PATHS: tuple[tuple[str, Render], ...] = (
    ("render_value, blocking (before)", _blocking),
    ("arender_value (after)", _awaitable),
)


def measure(runs: int, steps: int) -> list[tuple[str, float, float, float]]:
    """(case, batch ms, median heartbeat lateness ms, worst lateness ms) per workload and render path."""
    pool = default_pool()
    # The pool starts its children lazily: start all of them outside the figures.
    asyncio.run(_batch(_awaitable, pool.size, 2))
    rows = []
    for workload, items, share in WORKLOADS:
        for name, render in PATHS:
            elapsed, lateness = asyncio.run(_batch(render, runs, max(1, int(steps * share)), items))
            rows.append((f"{workload}: {name}", elapsed * 1000, statistics.median(lateness), max(lateness)))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, to check it runs")
    options = parser.parse_args(argv)
    runs, steps = (2, 3) if options.quick else (8, 50)
    print(f"{runs} concurrent runs rendering 10-field step configs; heartbeat every {TICK_MS:g} ms\n")
    print("| workload: render path | batch ms | heartbeat late, median ms | heartbeat late, worst ms |")
    print("|---|---:|---:|---:|")
    for name, batch, median, worst in measure(runs, steps):
        print(f"| {name} | {batch:,.0f} | {median:.2f} | {worst:.2f} |")


if __name__ == "__main__":
    main()
