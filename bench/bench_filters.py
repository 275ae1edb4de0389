"""What a compiled event filter costs per evaluation, against the same test written by hand.

The filter has five conditions, one of them a regex; the floor is a plain Python function doing the
same checks with the same semantics (booleans are not numbers, missing means no match) and the same
RE2 pattern. Each payload is timed in a loop of N evaluations; the figure is the median over repeats.

    .venv/bin/python -m bench.bench_filters [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import re2

from app.engine.filters import compile_filter

FILTER: dict[str, Any] = {
    "file.mime_type": {"starts_with": "image/"},
    "file.size": {"lt": 10_000_000},
    "file.name": {"regex": r"(?i)\.(png|jpe?g)$"},
    "owner.role": {"in": ["editor", "owner"]},
    "$not": {"folder": "trash"},
}

_NAME = re2.compile(r"(?i)\.(png|jpe?g)$")
_ROLES = frozenset({"editor", "owner"})


def by_hand(payload: Any) -> bool:
    """FILTER written out in Python: the floor."""
    if not isinstance(payload, dict):
        return False
    file, owner = payload.get("file"), payload.get("owner")
    if not isinstance(file, dict) or not isinstance(owner, dict):
        return False
    mime, size, name, role = file.get("mime_type"), file.get("size"), file.get("name"), owner.get("role")
    return (
        isinstance(mime, str)
        and mime.startswith("image/")
        and isinstance(size, int | float)
        and not isinstance(size, bool)
        and size < 10_000_000
        and isinstance(name, str)
        and _NAME.search(name.encode()) is not None
        and isinstance(role, str)
        and role in _ROLES
        and payload.get("folder") != "trash"
    )


def _payload(**changes: Any) -> dict[str, Any]:
    file = {"mime_type": "image/jpeg", "size": 2_400_000, "name": "holiday-2026.JPG", "id": "f_81"}
    payload = {"file": file, "owner": {"role": "editor", "name": "Ada"}, "folder": "photos", "space": "s1"}
    for key, value in changes.items():
        if key in file:
            file[key] = value
        else:
            payload[key] = value
    return payload


PAYLOADS = [
    ("matches (every condition runs)", _payload()),
    ("fails the first condition", _payload(mime_type="application/pdf")),
    ("fails the regex", _payload(name="holiday-2026.gif")),
    ("fails the last condition", _payload(folder="trash")),
]


def _time_ns(function: Callable[[Any], bool], payload: Any, loops: int) -> float:
    start = time.perf_counter()
    for _ in range(loops):
        function(payload)
    return (time.perf_counter() - start) / loops * 1e9


def _paired_medians(
    first: Callable[[Any], bool], second: Callable[[Any], bool], payload: Any, loops: int, repeat: int
) -> tuple[float, float]:
    """Median ns per call of each function; their runs alternate, so machine drift hits both alike."""
    _time_ns(first, payload, loops)  # warm-up
    _time_ns(second, payload, loops)
    samples: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        samples[0].append(_time_ns(first, payload, loops))
        samples[1].append(_time_ns(second, payload, loops))
    return statistics.median(samples[0]), statistics.median(samples[1])


def _compile_us(loops: int, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(loops):
            compile_filter(FILTER)
        samples.append((time.perf_counter() - start) / loops)
    return statistics.median(samples) * 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny loop counts, for a CI smoke run")
    options = parser.parse_args(argv)
    loops, repeat = (200, 3) if options.quick else (20_000, 9)

    compiled = compile_filter(FILTER)
    print(f"Filter: {len(FILTER)} conditions incl. a regex; {loops:,} evaluations x {repeat} repeats\n")
    print("| payload | compiled ns | by hand ns (floor) | ratio |")
    print("|---|---:|---:|---:|")
    for name, payload in PAYLOADS:
        # Both sides must give the same answer, or the timing compares different work.
        assert compiled(payload) is by_hand(payload), name
        ours, floor = _paired_medians(compiled, by_hand, payload, loops, repeat)
        print(f"| {name} | {ours:,.0f} | {floor:,.0f} | {ours / floor:.2f}x |")
    compile_us = _compile_us(max(loops // 20, 1), repeat)
    print(f"\ncompile_filter, once per filter (re2 caches the compiled pattern): {compile_us:,.1f} µs")


if __name__ == "__main__":
    main()
