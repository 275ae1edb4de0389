"""What the sandbox process costs a normal render.

Renders a typical step config (10 templated fields) through `render_value`, which makes one round
trip to a warm sandbox process, and compares it with the floor: the same templates, compiled once,
rendered by a plain in-process `ImmutableSandboxedEnvironment`. Also shows the cost of one round
trip per field, of a large context, and of starting the pool.

    .venv/bin/python -m bench.bench_templating [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable
from typing import Any

from jinja2 import StrictUndefined
from jinja2.sandbox import ImmutableSandboxedEnvironment

from app.engine.templating import arender_value, render_template, render_value
from app.engine.templating.filters import date_filter, slugify
from app.engine.templating.pool import TemplatePool, default_pool
from app.engine.templating.protocol import encode_request

CONFIG: dict[str, Any] = {
    "channel": "{{ inputs.channel }}",
    "title": "Daily digest for {{ run.started_at|date('%Y-%m-%d') }}",
    "text": "{{ fetch.entries|length }} new items from {{ trigger.payload.source|upper }}",
    "tags": "{{ inputs.tags }}",
    "summary": "{{ fetch.entries|first|tojson }}",
    "slug": "{{ run.automation_name|slugify }}-{{ run.attempt }}",
    "owner": "{{ trigger.payload.user.name|default('nobody') }}",
    "count": "{{ fetch.entries|length + 1 }}",
    "body": "{% for item in fetch.entries %}- {{ item.title|truncate(40) }}\n{% endfor %}",
    "urgent": "{{ fetch.entries|length > 10 and inputs.notify }}",
    "retries": 3,
    "format": "markdown",
}


def _context(items: int, padding: int = 0) -> dict[str, Any]:
    return {
        "run": {
            "id": "run_01HZX",
            "started_at": "2026-05-26T09:00:00+00:00",
            "automation_id": "aut_42",
            "automation_name": "Daily Digest",
            "automation_version": 3,
            "trigger_type": "schedule",
            "trigger_id": "trg_7",
            "space_id": "spc_1",
            "creator_id": "usr_9",
            "attempt": 1,
        },
        "inputs": {"channel": "#news", "tags": ["ops", "daily"], "notify": True},
        "trigger": {"payload": {"source": "rss", "user": {"name": "Ada"}, "padding": "x" * padding}},
        "fetch": {
            "entries": [
                {"title": f"Item number {index} with a reasonably long title", "url": f"https://e.x/{index}"}
                for index in range(items)
            ]
        },
    }


def _median_us(function: Callable[[], object], warmup: int, repeat: int) -> float:
    for _ in range(warmup):
        function()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


def _in_process(context: dict[str, Any]) -> Callable[[], object]:
    environment = ImmutableSandboxedEnvironment(undefined=StrictUndefined, autoescape=False)
    # Jinja has no `date` or `slugify`: lend it ours so both sides do the same work.
    environment.filters.update(date=date_filter, slugify=slugify)
    templates = [environment.from_string(value) for value in CONFIG.values() if isinstance(value, str)]

    def render() -> list[str]:
        return [template.render(context) for template in templates]

    return render


def _one_trip_per_field(context: dict[str, Any]) -> Callable[[], object]:
    sources = [value for value in CONFIG.values() if isinstance(value, str)]

    def render() -> list[str]:
        return [render_template(source, context) for source in sources]

    return render


def _cold_start() -> None:
    pool = TemplatePool(size=1)
    pool.exchange(encode_request("render", ["{{ 1 + 1 }}"], {}), 1)
    pool.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny repeat counts, for a CI smoke run")
    options = parser.parse_args(argv)
    warmup, repeat, cold = (3, 10, 1) if options.quick else (200, 2000, 5)

    context = _context(items=20)
    large = _context(items=20, padding=1024 * 1024)
    default_pool()  # the pool starts lazily: the warm-up below pays for the spawn
    floor = _median_us(_in_process(context), warmup, repeat)
    loop = asyncio.new_event_loop()
    rows = [
        ("in-process ImmutableSandboxedEnvironment (floor)", floor),
        ("render_value, one round trip", _median_us(lambda: render_value(CONFIG, context), warmup, repeat)),
        (
            "arender_value, one round trip on an event loop",
            _median_us(lambda: loop.run_until_complete(arender_value(CONFIG, context)), warmup, repeat),
        ),
        (
            "render_template per field, 10 round trips",
            _median_us(_one_trip_per_field(context), warmup, repeat),
        ),
        (
            "render_value, 1 MB context",
            _median_us(lambda: render_value(CONFIG, large), max(warmup // 10, 1), max(repeat // 10, 3)),
        ),
        ("pool cold start (spawn + first render)", _median_us(_cold_start, 0, cold)),
    ]
    loop.close()
    print(f"Typical step config: 10 templated fields, context of {len(str(context))} characters\n")
    print("| case | median µs | ratio to floor |")
    print("|---|---:|---:|")
    for name, micros in rows:
        print(f"| {name} | {micros:,.0f} | {micros / floor:.1f}x |")


if __name__ == "__main__":
    main()
