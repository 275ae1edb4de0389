"""The benchmark suite: which benchmarks, in which order, at which sizes; one table at the end.

    python -m bench                 # everything (full sizes), results to stdout
    python -m bench --write         # also to bench/results/latest.md (what `make bench` runs)
    python -m bench fire latency    # some of them
    python -m bench --smoke         # everything at tiny sizes: checks that each runs and prints its row

The results end with one row per goal of the release (`bench.report.TARGETS`): the figure, its ratio to
the floor of the same run, the goal, met or not; a goal this run did not measure says so.

Benchmarks run in a fixed order whatever the command line says: the in-process ones, then the ones
that need no worker (the runs they leave and their wake-ups are dropped), then the ones on a worker.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.machine import OtherWork, machine
from bench.report import Row, summary, table
from bench.stack import (
    FULL_REDIS_DB,
    SMOKE_REDIS_DB,
    BenchStack,
    Servers,
    log,
    resolve_servers,
)

RESULTS = Path(__file__).resolve().parent / "results" / "latest.md"


@dataclass(frozen=True)
class Profile:
    name: str
    template_warmup: int
    template_repeat: int
    filter_loops: int
    filter_repeat: int
    event_sizes: tuple[int, ...]
    event_seconds: float
    event_repeats: int
    dispatch_warmup: int
    dispatch_repeats: int
    schedule_burst: int
    schedule_due: int
    schedule_sizes: tuple[int, ...]
    schedule_warmup: int
    schedule_ticks: int
    schedule_lone: int
    clients: int
    fire_warmup: int
    fire_rounds: int
    fire_per_round: int
    latency_warmup: int
    latency_runs: int
    throughput_warmup: int
    throughput_batches: int
    throughput_batch: int
    metrics_fire_rounds: int
    metrics_fires: int
    metrics_run_rounds: int
    metrics_runs: int
    metrics_probe_count: int
    metrics_callgrind: bool
    pooler_warmup: int = 50
    pooler_rounds: int = 6
    pooler_batch: int = 300
    mcp_warmup: int = 20
    mcp_calls: int = 50
    mcp_repeat: int = 5
    knowledge_sizes: tuple[int, ...] = (10_000, 100_000)
    knowledge_repeats: int = 30
    approval_warmup: int = 5
    approval_runs: int = 100
    waits_warmup: int = 10
    waits_runs: int = 100
    waits_lag_runs: int = 50
    load_warmup_seconds: float = 5.0
    load_seconds: float = 30.0
    load_noops: int = 500


FULL = Profile(
    name="full",
    template_warmup=200,
    template_repeat=2000,
    filter_loops=20_000,
    filter_repeat=9,
    event_sizes=(10, 1_000, 10_000),
    event_seconds=0.3,
    event_repeats=5,
    dispatch_warmup=1,
    dispatch_repeats=5,
    schedule_burst=10_000,
    schedule_due=1_000,
    schedule_sizes=(1_000, 100_000),
    schedule_warmup=1,
    schedule_ticks=3,
    schedule_lone=50,
    clients=16,
    fire_warmup=150,
    fire_rounds=5,
    fire_per_round=300,
    latency_warmup=10,
    latency_runs=200,
    throughput_warmup=100,
    throughput_batches=4,
    throughput_batch=500,
    metrics_fire_rounds=12,
    metrics_fires=400,
    metrics_run_rounds=10,
    metrics_runs=120,
    metrics_probe_count=2000,
    metrics_callgrind=True,
)

SMOKE = Profile(
    name="smoke",
    template_warmup=3,
    template_repeat=10,
    filter_loops=200,
    filter_repeat=3,
    event_sizes=(10, 100, 1_000),
    event_seconds=0.005,
    event_repeats=3,
    dispatch_warmup=1,
    dispatch_repeats=2,
    schedule_burst=20,
    schedule_due=5,
    schedule_sizes=(30, 100),
    schedule_warmup=1,
    schedule_ticks=2,
    schedule_lone=3,
    clients=4,
    fire_warmup=4,
    fire_rounds=2,
    fire_per_round=12,
    latency_warmup=1,
    latency_runs=4,
    throughput_warmup=2,
    throughput_batches=2,
    throughput_batch=8,
    metrics_fire_rounds=2,
    metrics_fires=12,
    metrics_run_rounds=2,
    metrics_runs=4,
    metrics_probe_count=50,
    metrics_callgrind=False,
    pooler_warmup=2,
    pooler_rounds=2,
    pooler_batch=6,
    mcp_warmup=1,
    mcp_calls=3,
    mcp_repeat=2,
    knowledge_sizes=(200, 1_000),
    knowledge_repeats=3,
    approval_warmup=1,
    approval_runs=4,
    waits_warmup=1,
    waits_runs=4,
    waits_lag_runs=3,
    load_warmup_seconds=0.5,
    load_seconds=2.0,
    load_noops=8,
)


@dataclass(frozen=True)
class Benchmark:
    name: str
    aliases: tuple[str, ...]
    needs_stack: bool
    run: Callable[[BenchStack | None, Profile], list[Row]]
    summary: str


def _templates(_: BenchStack | None, p: Profile) -> list[Row]:
    from bench import templates

    return templates.run(p.template_warmup, p.template_repeat)


def _filters(_: BenchStack | None, p: Profile) -> list[Row]:
    from bench import filters

    return filters.run(p.filter_loops, p.filter_repeat)


def _events(_: BenchStack | None, p: Profile) -> list[Row]:
    from bench import events

    return events.run(p.event_sizes, p.event_seconds, p.event_repeats)


def _mcp(_: BenchStack | None, p: Profile) -> list[Row]:
    from bench import mcp

    return mcp.run(p.mcp_warmup, p.mcp_calls, p.mcp_repeat)


def _dispatch(stack: BenchStack | None, p: Profile) -> list[Row]:
    from bench import dispatch

    assert stack is not None
    return dispatch.run(stack, p.event_sizes, p.dispatch_warmup, p.dispatch_repeats)


def _knowledge(stack: BenchStack | None, p: Profile) -> list[Row]:
    from bench import knowledge

    assert stack is not None
    return knowledge.run(stack, p.knowledge_sizes, p.knowledge_repeats)


def _schedule(stack: BenchStack | None, p: Profile) -> list[Row]:
    from bench import schedule

    assert stack is not None
    return schedule.run(
        stack,
        p.schedule_burst,
        p.schedule_due,
        p.schedule_sizes,
        p.schedule_warmup,
        p.schedule_ticks,
        p.schedule_lone,
    )


def _fire(stack: BenchStack | None, p: Profile) -> list[Row]:
    from bench import fire

    assert stack is not None
    return fire.run(stack, p.clients, p.fire_warmup, p.fire_rounds, p.fire_per_round)


def _latency(stack: BenchStack | None, p: Profile) -> list[Row]:
    from bench import runs

    assert stack is not None
    return runs.latency(stack, p.latency_warmup, p.latency_runs)


def _approvals(stack: BenchStack | None, p: Profile) -> list[Row]:
    from bench import approvals

    assert stack is not None
    return approvals.run(stack, p.approval_warmup, p.approval_runs)


def _waits(stack: BenchStack | None, p: Profile) -> list[Row]:
    from bench import waits

    assert stack is not None
    return waits.run(stack, p.waits_warmup, p.waits_runs, p.waits_lag_runs)


def _throughput(stack: BenchStack | None, p: Profile) -> list[Row]:
    from bench import runs

    assert stack is not None
    return runs.throughput(stack, p.throughput_warmup, p.throughput_batches, p.throughput_batch, p.clients)


def _load(stack: BenchStack | None, p: Profile) -> list[Row]:
    from bench import load

    assert stack is not None
    return load.run(stack, p.clients, p.load_warmup_seconds, p.load_seconds, p.load_noops)


def _pooler(stack: BenchStack | None, p: Profile) -> list[Row]:
    from bench import pooler

    assert stack is not None
    return pooler.run(stack, p.pooler_warmup, p.pooler_rounds, p.pooler_batch, p.clients)


def _metrics(stack: BenchStack | None, p: Profile) -> list[Row]:
    from bench import metrics_overhead

    assert stack is not None
    sizes = metrics_overhead.Sizes(
        clients=min(p.clients, 8),
        fire_warmup=p.fire_warmup,
        fire_rounds=p.metrics_fire_rounds,
        fires=p.metrics_fires,
        run_rounds=p.metrics_run_rounds,
        runs=p.metrics_runs,
        probe_count=p.metrics_probe_count,
        probe_rounds=5 if p.metrics_callgrind else 2,
        callgrind=p.metrics_callgrind,
        fresh=p.name == "full",
    )
    return metrics_overhead.run(stack, sizes)


BENCHMARKS = (
    Benchmark("templates", ("template",), False, _templates, "template render vs in-process Jinja"),
    Benchmark("filters", ("filter",), False, _filters, "a compiled filter vs the same test by hand"),
    Benchmark("events", ("event", "matching"), False, _events, "event matching vs a dict lookup"),
    Benchmark("mcp", ("mcp-call",), False, _mcp, "an MCP tool call vs the native http port, same work"),
    Benchmark("dispatch", ("event-dispatch",), True, _dispatch, "event dispatch via the DB at three sizes"),
    Benchmark("schedule", ("tick",), True, _schedule, "schedule tick at two table sizes"),
    Benchmark(
        "knowledge", ("search",), True, _knowledge, "recall@5 and MRR vs ILIKE; search latency vs raw SQL"
    ),
    Benchmark("fire", ("webhook",), True, _fire, "webhook fires/s through uvicorn vs raw INSERTs"),
    Benchmark("latency", (), True, _latency, "fire → succeeded vs a Celery round trip + 3 writes"),
    Benchmark(
        "approvals",
        ("approval",),
        True,
        _approvals,
        "approved → call executed vs a Celery round trip + 2 writes",
    ),
    Benchmark(
        "waits",
        ("wait",),
        True,
        _waits,
        "3-step latency with 1,000 runs waiting vs none; due wait → resumed lag",
    ),
    Benchmark("throughput", ("memory",), True, _throughput, "runs/s and peak RSS vs no-op tasks/s"),
    Benchmark(
        "load",
        ("outside-load",),
        True,
        _load,
        "runs/s completed while keep-alive clients fire at the api and worker (~40 s)",
    ),
    Benchmark("pooler", ("pgbouncer",), True, _pooler, "runs/s through PgBouncer vs straight to PostgreSQL"),
    Benchmark(
        "metrics", ("metrics-overhead",), True, _metrics, "api and worker CPU per op, metrics on vs off"
    ),
)


def _select(names: list[str]) -> list[Benchmark]:
    if not names:
        return list(BENCHMARKS)
    known = {alias: b.name for b in BENCHMARKS for alias in (b.name, *b.aliases)}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise SystemExit(f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    wanted = {known[name] for name in names}
    return [b for b in BENCHMARKS if b.name in wanted]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Benchmarks of the service on real PostgreSQL, Redis and Celery, each against its floor.",
        epilog="benchmarks: " + "; ".join(f"{b.name} ({b.summary})" for b in BENCHMARKS),
    )
    parser.add_argument("benchmarks", nargs="*", help="run only these (default: all)")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: check each runs and prints its row")
    parser.add_argument("--write", action="store_true", help=f"also write the results to {RESULTS}")
    parser.add_argument("--output", type=Path, help="also write the results to this file")
    options = parser.parse_args(argv)
    if options.write and options.smoke:
        parser.error("--write records full-size figures; a smoke run's are not results (use --output)")
    selected = _select(options.benchmarks)
    profile = SMOKE if options.smoke else FULL
    outputs = [path for path in (RESULTS if options.write else None, options.output) if path is not None]

    started = time.monotonic()
    load_at_start = os.getloadavg()
    servers: Servers | None = None
    stack: BenchStack | None = None
    rows: list[Row] = []
    failed: list[str] = []
    machine_lines: list[tuple[str, str]] = []
    other_work = OtherWork().start()
    try:
        if any(b.needs_stack for b in selected):
            servers = resolve_servers()
            stack = BenchStack(servers, SMOKE_REDIS_DB if options.smoke else FULL_REDIS_DB)
            stack.open()
        for benchmark in selected:
            try:
                rows.extend(benchmark.run(stack, profile))
            except Exception as exc:
                traceback.print_exc()
                if stack is not None:
                    print(stack.log_tails(), file=sys.stderr)
                failed.append(benchmark.name)
                rows.append(Row(f"{benchmark.name}: FAILED", f"{type(exc).__name__}: {str(exc)[:200]}"))
        other_work.stop()
        machine_lines = machine(stack, load_at_start, other_work.share)
    finally:
        other_work.stop()
        if stack is not None:
            stack.close()
    elapsed = time.monotonic() - started
    ran = "all benchmarks" if len(selected) == len(BENCHMARKS) else ", ".join(b.name for b in selected)
    document = _document(profile, ran, machine_lines, rows, elapsed)
    print(document)
    for output in outputs:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(document)
        log(f"results written to {output}")
    if failed:
        log(f"FAILED: {', '.join(failed)}")
        return 1
    return 0


def _document(
    profile: Profile, ran: str, machine_lines: list[tuple[str, str]], rows: list[Row], elapsed: float
) -> str:
    lines = [f"## Benchmark results ({profile.name} run of {ran}, {elapsed:,.0f} s)", ""]
    lines += [f"- **{key}**: {value}" for key, value in machine_lines]
    lines += [
        "",
        "Each figure is a median of repeated measurements after a warm-up; its floor is measured in the same",
        "run on the same servers. `x floor` is our cost per operation over the floor's (1x = as fast).",
        "",
        table(rows),
        "",
    ]
    lines += ["### Headline figures against their targets", "", summary(rows), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
