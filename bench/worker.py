"""The service's worker as `automations worker` starts it, plus the bench's no-op tasks.

    python -m bench.worker [-n NAME] [other celery worker options]

Same settings (read from the environment), same queues, pool, default concurrency and metrics folder
as `automations worker`; the differences: `bench.noop_tasks` is imported as well, so the floors run on
the very same worker as the runs, and `bench.round_trips` counts the database round trips of each task.
"""

from __future__ import annotations

import logging
import os
import sys

from app.cli import prepare_metrics_folder
from app.config import get_settings


def main(argv: list[str]) -> None:
    logging.basicConfig(
        level=os.environ.get("AUTOMATIONS_LOG_LEVEL", "INFO"),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    settings = get_settings()
    prepare_metrics_folder(settings)  # as `automations worker` does, before prometheus-client loads
    from app.worker.celery_app import ALL_QUEUES, WORKER_OPTIONS, create_celery
    from bench import round_trips

    round_trips.install(settings.home)
    celery = create_celery(settings)
    celery.conf.include = [*celery.conf.include, "bench.noop_tasks"]
    celery.worker_main(["worker", "-Q", ",".join(ALL_QUEUES), "--loglevel=INFO", *WORKER_OPTIONS, *argv])


if __name__ == "__main__":
    main(sys.argv[1:])
