"""Filter evaluation: one compiled event filter (five conditions, one of them a regex) against the same
test written by hand in Python. The filter, payloads and paired harness are `bench.bench_filters`'s."""

from __future__ import annotations

from app.engine.filters import compile_filter
from bench import bench_filters as filters
from bench.report import Row, ratio
from bench.stack import log


def run(loops: int, repeat: int) -> list[Row]:
    log(f"filter evaluation: {loops:,} evaluations x {repeat} repeats per payload")
    compiled = compile_filter(filters.FILTER)
    rows = []
    for name, payload in filters.PAYLOADS[:2]:  # every condition runs; the first one fails
        # Both sides must give the same answer, or the timing compares different work.
        assert compiled(payload) is filters.by_hand(payload), name
        ours, floor = filters._paired_medians(compiled, filters.by_hand, payload, loops, repeat)
        rows.append(
            Row(
                f"filter evaluation, payload {name}",
                f"{ours:,.0f} ns per evaluation (compile_filter)",
                f"{floor:,.0f} ns (the same test written by hand)",
                ratio(ours, floor),
                f"{len(filters.FILTER)} conditions incl. a regex; median of {repeat} x {loops:,}, "
                "alternating; `python -m bench.bench_filters` has more payloads",
            )
        )
    return rows
