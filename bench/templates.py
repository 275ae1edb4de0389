"""Template render: `render_value` of a typical step config (one round trip to the warm sandbox process),
against the same templates compiled once and rendered by a plain in-process Jinja
`ImmutableSandboxedEnvironment`. The cases and harness are `bench.bench_templating`'s."""

from __future__ import annotations

from bench import bench_templating as templating
from bench.report import Row, median, ratio, us
from bench.stack import log


def run(warmup: int, repeat: int) -> list[Row]:
    log(f"template render: {repeat} renders after {warmup} warm-up, each way")
    context = templating._context(items=20)
    templating.default_pool()  # started lazily: the warm-up pays for the spawn
    # Alternate the two sides in blocks so machine drift hits both alike; medians of the medians.
    ours: list[float] = []
    floor: list[float] = []
    in_process = templating._in_process(context)
    for _ in range(3):
        floor.append(templating._median_us(in_process, warmup, repeat))
        ours.append(
            templating._median_us(lambda: templating.render_value(templating.CONFIG, context), warmup, repeat)
        )
    ours_us, floor_us = median(ours), median(floor)
    fields = sum(isinstance(value, str) for value in templating.CONFIG.values())
    return [
        Row(
            f"template render, {fields} templated fields",
            f"{us(ours_us / 1e6)} per config (render_value)",
            f"{us(floor_us / 1e6)} (in-process ImmutableSandboxedEnvironment, compiled once)",
            ratio(ours_us, floor_us),
            f"medians of {repeat} renders after {warmup} warm-up, 3 alternating blocks; "
            "`python -m bench.bench_templating` has the other cases",
        )
    ]
