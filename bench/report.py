"""Statistics, the one results table, and the closing summary of the figures against their goals."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

HEADER = ("figure", "result", "floor (same run, same servers)", "x floor", "target", "details")


@dataclass(frozen=True)
class Target:
    """One of the release's performance goals: the figure, the goal, and what measures it."""

    key: str
    figure: str
    goal: str
    how: str


# The closing summary has one row per goal, in this order, whether this run measured it or not.
TARGETS = (
    Target(
        "fire",
        "webhook fire, 16 clients → 16 webhooks",
        "≤ 8x the INSERT floor, p99 < 50 ms",
        "run `python -m bench fire`",
    ),
    Target("latency", "run latency, 3 steps, p50", "≤ 3x its floor", "run `python -m bench latency`"),
    Target(
        "throughput",
        "run throughput, 3 steps",
        "≤ 3x the Celery no-op floor",
        "run `python -m bench throughput`",
    ),
    Target(
        "mcp",
        "MCP tool call, pooled session",
        "≤ 1.5x the reused-session cost",
        "run `python -m bench mcp`",
    ),
    Target(
        "test",
        "`make test` duration on 2 cores",
        "≤ 10 min, same coverage",
        "no bench runs the suite; time `make test-only` (its default sessions) on a quiet 2-core machine",
    ),
    Target(
        "load",
        "outside load test: runs/s completed (16 keep-alive clients, 3-step webhook automation)",
        "≥ 400 runs/s",
        "run `python -m bench load`",
    ),
)


@dataclass(frozen=True)
class Headline:
    """What a benchmark measured for one of TARGETS (`key`): the figure, its ratio to the floor of the
    same run (with that floor), and whether it meets the goal."""

    key: str
    measured: str
    versus_floor: str
    met: bool


@dataclass(frozen=True)
class Row:
    """One line of the table. `ratio` is our cost per operation over the floor's (1.0x = as fast)."""

    figure: str
    result: str
    floor: str = "—"
    ratio: str = "—"
    details: str = ""
    target: str = "—"  # the figure's goal, printed beside it
    headlines: tuple[Headline, ...] = ()
    """What of this row the closing summary puts beside its goal (see TARGETS)."""


def within(cost: float, floor_cost: float, limit: float) -> bool:
    """Whether a cost is at most `limit` times its floor's (never with no floor to compare to)."""
    return floor_cost > 0 and cost / floor_cost <= limit


def median(samples: Sequence[float]) -> float:
    return float(statistics.median(samples))


def percentile(samples: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(samples)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return float(ordered[rank - 1])


def ratio(cost: float, floor_cost: float) -> str:
    """How many times the floor's cost an operation takes."""
    if floor_cost <= 0:
        return "—"
    value = cost / floor_cost
    return f"{value:,.1f}x" if value < 100 else f"{value:,.0f}x"


def rate(value: float, unit: str) -> str:
    if value >= 100:
        return f"{value:,.0f} {unit}/s"
    return f"{value:,.1f} {unit}/s"


def ms(seconds: float) -> str:
    value = seconds * 1000
    if value >= 100:
        return f"{value:,.0f} ms"
    if value >= 10:
        return f"{value:.1f} ms"
    return f"{value:.2f} ms"


def us(seconds: float) -> str:
    return f"{seconds * 1e6:,.0f} µs"


def mib(size: int) -> str:
    return f"{size / 2**20:,.0f} MiB"


def summary(rows: Sequence[Row]) -> str:
    """One line per goal of TARGETS: what `rows` measured for it beside the goal, met or not; a goal no
    row measured says so and how to measure it."""
    measured: dict[str, Headline] = {}
    for row in rows:
        for headline in row.headlines:
            measured.setdefault(headline.key, headline)
    lines = ["| figure | measured | x floor (same run) | target | met |", "|---|---:|---:|---|---|"]
    for target in TARGETS:
        headline = measured.get(target.key)
        if headline is None:
            cells = (target.figure, f"not measured: {target.how}", "—", target.goal, "not measured")
        else:
            verdict = "met" if headline.met else "not met"
            cells = (target.figure, headline.measured, headline.versus_floor, target.goal, verdict)
        lines.append(_line(cells))
    return "\n".join(lines)


def table(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|---|---:|---:|---:|---|---|"]
    for row in rows:
        lines.append(_line((row.figure, row.result, row.floor, row.ratio, row.target, row.details)))
    return "\n".join(lines)


def _line(cells: Sequence[str]) -> str:
    """A markdown table line; a `|` inside a cell is escaped so it cannot split the cell."""
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"
