"""The floors' tasks: Celery tasks that do nothing, served by the same worker process as the runs.

The bench worker (`bench.worker`) imports this module next to `app.worker.tasks`, so a no-op goes
through the same broker, queue, pool and concurrency as a run's wake-up.
"""

from __future__ import annotations

from celery import shared_task

NOOP = "bench.noop"
NOOP_WITH_RESULT = "bench.noop_with_result"


@shared_task(name=NOOP)  # type: ignore[untyped-decorator]
def noop() -> None:
    """Nothing at all, with no result stored (like `runs.execute`): the throughput floor."""


@shared_task(name=NOOP_WITH_RESULT, ignore_result=False)  # type: ignore[untyped-decorator]
def noop_with_result() -> None:
    """Nothing, but its result is stored so a caller can wait for it: the round-trip floor."""
