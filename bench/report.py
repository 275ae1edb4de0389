"""Statistics and the one results table."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

HEADER = ("figure", "result", "floor (same run, same servers)", "x floor", "target", "details")


@dataclass(frozen=True)
class Headline:
    """A headline figure as the summary shows it: measured, its target, and whether it meets it."""

    name: str
    measured: str
    target: str
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
    """What of this row the closing summary puts beside its target."""


def ratio_headline(name: str, cost: float, floor_cost: float, limit: float) -> Headline:
    """A cost over its floor against a ratio the target allows at most."""
    return Headline(
        name, ratio(cost, floor_cost), f"≤ {limit:g}x", floor_cost > 0 and cost / floor_cost <= limit
    )


def latency_headline(name: str, seconds: float, limit_seconds: float) -> Headline:
    """A latency against a bound it must stay under."""
    return Headline(name, ms(seconds), f"< {ms(limit_seconds)}", seconds < limit_seconds)


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
    """The headline figures of `rows` beside their targets (empty when no row carries one)."""
    headlines = [headline for row in rows for headline in row.headlines]
    if not headlines:
        return ""
    lines = ["| headline | measured | target | met |", "|---|---:|---:|---|"]
    for headline in headlines:
        cells = (headline.name, headline.measured, headline.target, "yes" if headline.met else "NO")
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def table(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|---|---:|---:|---:|---|---|"]
    for row in rows:
        cells = (row.figure, row.result, row.floor, row.ratio, row.target, row.details)
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)
