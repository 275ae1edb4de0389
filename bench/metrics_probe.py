"""The metric calls of one webhook fire or one 3-step run, exactly as the hot paths make them, in a loop.

    python -m bench.metrics_probe fire|run COUNT on|off      # the loop alone (what callgrind counts)
    python -m bench.metrics_probe fire|run COUNT cpu ROUNDS  # process CPU per operation, on and off

Run as a process of its own: prometheus-client picks multiprocess mode when it is first imported, so the
folder (`PROMETHEUS_MULTIPROC_DIR`, a temporary one here) must be set before `app.metrics` loads, as
`automations api` and `automations worker` set it. Imports stay minimal so that a count under callgrind
is quick and mostly the loop.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

STEPS = ("transform_data", "transform_data", "notification")


def main(argv: list[str]) -> None:
    workload, count, mode = argv[0], int(argv[1]), argv[2]
    folder = tempfile.mkdtemp(prefix="automations-metrics-probe-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
    try:
        from app import metrics

        def fire() -> None:
            # The route's answer and the dispatcher's new run (app/api/routes/webhooks.py, dispatch.py).
            metrics.webhook_answered(202)
            metrics.run_created("webhook", "pending")

        def run() -> None:
            # The claim, each step's end and the terminal transition (execution, journal, finishing).
            metrics.run_started(0.004)
            for action in STEPS:
                metrics.step_finished(action, "succeeded", 0.002)
            metrics.run_finished("succeeded", 0.012)

        operation = {"fire": fire, "run": run}[workload]
        if mode == "cpu":
            print(json.dumps(_cpu(metrics.configure, operation, count, int(argv[3]))))
            return
        metrics.configure(enabled=mode == "on")
        for _ in range(count):
            operation()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _cpu(
    configure: Callable[..., None], operation: Callable[[], None], count: int, rounds: int
) -> dict[str, float]:
    """Median process CPU seconds per operation with metrics on and off, rounds alternating."""
    seconds: dict[str, list[float]] = {"on": [], "off": []}
    for _ in range(rounds):
        for state in ("on", "off"):
            configure(enabled=state == "on")
            started = time.process_time()
            for _ in range(count):
                operation()
            seconds[state].append((time.process_time() - started) / count)
    return {state: statistics.median(values) for state, values in seconds.items()}


if __name__ == "__main__":
    main(sys.argv[1:])
