"""`automations check` and `worker-alive`: whether the stack, and one worker, answer.

`check` is for an operator (the database, the broker, a worker on every queue); `worker-alive` is a
worker's liveness probe (deploy/kubernetes).
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from typing import Any

import click

from app.cli_common import fail_on_configuration, load_settings
from app.config import Settings

# How much longer than its own timeout `worker-alive` waits for the broker before leaving the worker be.
BROKER_WAIT_SECONDS = 10.0


async def _check(settings: Settings) -> dict[str, Any]:
    from redis.asyncio import Redis

    from app.persistence.db import create_engine
    from app.services.health import check_readiness

    # Through the pooler, as the api and workers reach the database.
    engine = create_engine(
        settings.resolved_database_url(),
        pool_size=1,
        application_name="automations-cli",
        transaction_pooler=settings.behind_transaction_pooler,
    )
    redis = Redis.from_url(settings.resolved_redis_url())
    try:
        return (await check_readiness(engine, redis, settings.redis_key_prefix)).as_dict()
    finally:
        await redis.aclose()
        await engine.dispose()


@click.command()
@click.option("--timeout", type=float, default=5.0, show_default=True, help="Seconds to wait for each queue.")
@fail_on_configuration
def check(timeout: float) -> None:
    """Check the database, the broker, and that a worker answers on every queue."""
    from celery.exceptions import TimeoutError as CeleryTimeout

    from app.worker.celery_app import ALL_QUEUES, create_celery

    settings = load_settings()
    report = asyncio.run(_check(settings))
    celery = create_celery(settings)
    queues: dict[str, str] = {}
    if report["status"] == "ready":
        pending = {queue: celery.send_task("system.ping", queue=queue) for queue in ALL_QUEUES}
        for queue, result in pending.items():
            try:
                answer = result.get(timeout=timeout)
                queues[queue] = f"served by {answer['pong']} (database {answer['database']})"
            except CeleryTimeout:
                queues[queue] = f"no worker answered within {timeout:g}s"
    report["queues"] = queues
    click.echo(json.dumps(report, indent=2))
    if report["status"] != "ready" or any(not v.endswith("(database ok)") for v in queues.values()):
        sys.exit(1)


@click.command("worker-alive")
@click.option(
    "-n", "--hostname", required=True, help="The worker's node name as given to `worker -n` (%h: this host)."
)
@click.option(
    "--timeout", type=float, default=10.0, show_default=True, help="Seconds to wait for the answer."
)
@fail_on_configuration
def worker_alive(hostname: str, timeout: float) -> None:
    """Exit 1 if the broker answers but the named worker does not: a liveness probe.

    The ping travels the worker's own broker connection and event loop, so a worker that is alive but
    stopped polling the broker (Celery's Redis transport now and then fails to after a reconnection)
    fails the probe and is restarted instead of holding its queue silently. A broker that does not
    answer at all (within `--timeout` and BROKER_WAIT_SECONDS more) is not the worker's fault and a
    restart would not help: that exits 0, saying so.
    """
    from celery.utils.nodenames import host_format

    from app.worker.celery_app import create_celery

    node = host_format(hostname)
    celery = create_celery(load_settings())
    outcome: dict[str, Any] = {}

    def ping() -> None:
        try:
            outcome["answers"] = celery.control.ping(destination=[node], timeout=timeout)
        except Exception as error:  # the broker unreachable: reported below
            outcome["error"] = error

    # A thread of its own bounds the wait: connecting to an unreachable broker retries for a while.
    pinging = threading.Thread(target=ping, daemon=True)
    pinging.start()
    pinging.join(timeout + BROKER_WAIT_SECONDS)
    if "answers" not in outcome:
        reason = outcome.get("error", "no answer in time")
        click.echo(f"{node}: the broker did not answer ({reason}); not the worker's fault", err=True)
        return
    celery.close()
    if not any(node in answer for answer in outcome["answers"]):
        click.echo(f"{node}: no answer within {timeout:g}s", err=True)
        sys.exit(1)
    click.echo(f"{node}: alive")
