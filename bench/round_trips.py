"""Database round trips the bench worker makes, per task name, counted in every pool process.

`bench.worker` installs `install()` before the pool forks: SQLAlchemy engine events count each statement
sent (an `executemany` batch counts once), each BEGIN, COMMIT and ROLLBACK, and after every task the
process adds its count to a Redis hash (`HINCRBY`, one call per task, the no-op floors' tasks included).
On a connection in autocommit mode (a claim's one-statement writes) the driver sends no BEGIN, COMMIT
or ROLLBACK, so those events are not counted there; its statements are.
The run benchmarks read the hash before and after N runs: round trips per run, by task.
"""

from __future__ import annotations

import os
from typing import Any

import redis
from celery.signals import task_postrun
from sqlalchemy import event
from sqlalchemy.engine import Engine

KEY = "automations-bench:round-trips"
_counted = {"n": 0}
_client: dict[int, redis.Redis] = {}


def _one(*_: Any, **__: Any) -> None:
    _counted["n"] += 1


def _transaction(connection: Any, *_: Any) -> None:
    if connection.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
        _counted["n"] += 1


def _after_task(task: Any = None, **_: Any) -> None:
    count, _counted["n"] = _counted["n"], 0
    if not count or task is None:
        return
    client = _client.get(os.getpid())
    if client is None:  # one client per process: a forked child never reuses its parent's socket
        client = _client[os.getpid()] = redis.Redis.from_url(os.environ["REDIS_URL"])
    client.hincrby(KEY, task.name, count)


def install() -> None:
    """Count from now on, in this process and the pool processes it forks."""
    event.listen(Engine, "before_cursor_execute", _one)
    for name in ("begin", "commit", "rollback"):
        event.listen(Engine, name, _transaction)
    task_postrun.connect(_after_task, weak=False)


def read(client: redis.Redis) -> dict[str, int]:
    """The counts so far, by task name."""
    raw: Any = client.hgetall(KEY)
    return {key.decode(): int(value) for key, value in raw.items()}
