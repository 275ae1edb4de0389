"""Event matching in-process: events per second matched against 10 / 1,000 / 10,000 event triggers.

The triggers all listen to one event type and have distinct filters (a repository name, a status list and
a branch prefix), so each event matches exactly one of them. Three ways to find it, timed on the same
events in alternating repeats:

- the service's matching (`EventService.dispatch` minus the database): the `FilterIndex` the service
  keeps per space over every trigger's compiled filter, which visits only the triggers that can match;
- plain evaluation: every trigger's predicate, compiled beforehand, evaluated on the payload (what the
  service did before the index);
- the floor: one dict lookup per event on the field that tells the filters apart.

Trigger rows are built in memory (`AutomationTrigger` instances never flushed), as the repository
would load them.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from app.engine.filters import compile_filter
from app.engine.filters.index import FilterIndex
from app.persistence.models import AutomationTrigger
from bench.data import EVENT_TYPE, event_filter, event_payload
from bench.report import Row, median, rate, ratio
from bench.stack import log

PAYLOADS = 1024


def triggers(count: int) -> list[AutomationTrigger]:
    stamp = datetime.now(UTC)
    return [
        AutomationTrigger(
            id=uuid.uuid4(),
            type="event",
            position=0,
            enabled=True,
            event_type=EVENT_TYPE,
            updated_at=stamp,
            config={"event_type": EVENT_TYPE, "filters": event_filter(index)},
        )
        for index in range(count)
    ]


def payloads(count: int) -> list[dict[str, Any]]:
    """Events for repositories spread over all `count` triggers (fixed seed: the same in every run)."""
    chooser = random.Random(count)
    return [event_payload(chooser.randrange(count)) for _ in range(PAYLOADS)]


Matcher = Callable[[dict[str, Any]], object]


def _service_index(candidates: Sequence[AutomationTrigger]) -> Matcher:
    index = FilterIndex((trigger.id, trigger.config.get("filters")) for trigger in candidates)
    return index.match


def _precompiled(candidates: Sequence[AutomationTrigger]) -> Matcher:
    predicates = [(trigger, compile_filter(trigger.config["filters"])) for trigger in candidates]

    def match(payload: dict[str, Any]) -> list[AutomationTrigger]:
        return [trigger for trigger, predicate in predicates if predicate(payload)]

    return match


def _dict_lookup(candidates: Sequence[AutomationTrigger]) -> Matcher:
    index = {trigger.config["filters"]["repository"]: trigger for trigger in candidates}

    def match(payload: dict[str, Any]) -> AutomationTrigger | None:
        return index.get(payload["repository"])

    return match


def _seconds(match: Matcher, events: Sequence[dict[str, Any]], count: int) -> float:
    size = len(events)
    started = time.perf_counter()
    for position in range(count):
        match(events[position % size])
    return time.perf_counter() - started


def _calibrated(match: Matcher, events: Sequence[dict[str, Any]], target: float) -> int:
    """How many events take about `target` seconds (the doubling is the warm-up)."""
    count = 1
    while True:
        elapsed = _seconds(match, events, count)
        if elapsed >= target or count >= 1 << 24:
            return max(1, int(count * target / max(elapsed, 1e-9)))
        count *= 2


def measure(size: int, target: float, repeats: int) -> dict[str, float]:
    """Median events per second of each matcher over `size` triggers."""
    candidates = triggers(size)
    events = payloads(size)
    matchers = {
        "service": _service_index(candidates),
        "precompiled": _precompiled(candidates),
        "floor": _dict_lookup(candidates),
    }
    for name, match in matchers.items():  # every way must find the same single trigger
        found = match(events[0])
        assert (len(found) if isinstance(found, list) else int(found is not None)) == 1, name
    counts = {name: _calibrated(match, events, target) for name, match in matchers.items()}
    samples: dict[str, list[float]] = {name: [] for name in matchers}
    for _ in range(repeats):
        for name, match in matchers.items():
            samples[name].append(counts[name] / _seconds(match, events, counts[name]))
    return {name: median(values) for name, values in samples.items()}


def run(sizes: Sequence[int], target: float, repeats: int) -> list[Row]:
    rows: list[Row] = []
    results: dict[int, dict[str, float]] = {}
    for size in sizes:
        log(f"event matching: {size:,} triggers")
        result = results[size] = measure(size, target, repeats)
        rows.append(
            Row(
                f"event matching, {size:,} triggers",
                rate(result["service"], "events"),
                f"{rate(result['floor'], 'events')} (dict lookup)",
                ratio(1 / result["service"], 1 / result["floor"]),
                f"the service's filter index; plain evaluation of every pre-compiled filter: "
                f"{rate(result['precompiled'], 'events')}; median of {repeats}",
            )
        )
    small, large = results[sizes[0]], results[sizes[-1]]
    slowdown = small["service"] / large["service"]
    floor_slowdown = small["floor"] / large["floor"]
    rows.append(
        Row(
            f"event matching, {sizes[0]:,} → {sizes[-1]:,} triggers",
            f"events/s ÷ {slowdown:,.1f}",
            f"÷ {floor_slowdown:,.2f} (dict lookup)",
            ratio(slowdown, floor_slowdown),
            target="growth ≤ 2x",
            details=f"plain evaluation ÷ {small['precompiled'] / large['precompiled']:,.1f}; "
            "target ≤ 2x: the index visits only the triggers that can match",
        )
    )
    return rows
