"""Database round trips the bench worker makes, per task name, counted in every pool process.

`bench.worker` installs `install()` before the pool forks: SQLAlchemy engine events count each statement
sent (an `executemany` batch counts once), each BEGIN, COMMIT and ROLLBACK, and after every task the
process appends its count to a file of its own under the bench's home (`round-trips/<pid>`, one line per
task that sent any). A local append costs a few microseconds; a Redis call per task (how this counted
before) cost a pool process a network round trip per run, which the throughput and load figures paid
and the no-op floor beside them did not.
On a connection in autocommit mode (a claim's one-statement writes) the driver sends no BEGIN, COMMIT
or ROLLBACK, so those events are not counted there; its statements are.
The run benchmarks read the files before and after N runs: round trips per run, by task.
"""

from __future__ import annotations

import collections
import os
from pathlib import Path
from typing import Any

from celery.signals import task_postrun
from sqlalchemy import event
from sqlalchemy.engine import Engine

FOLDER = "round-trips"
_counted = {"n": 0}
_files: dict[int, int] = {}
_folder: list[Path] = []


def _one(*_: Any, **__: Any) -> None:
    _counted["n"] += 1


def _transaction(connection: Any, *_: Any) -> None:
    if connection.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
        _counted["n"] += 1


def _after_task(task: Any = None, **_: Any) -> None:
    count, _counted["n"] = _counted["n"], 0
    if not count or task is None:
        return
    pid = os.getpid()
    fd = _files.get(pid)
    if fd is None:  # one file per process: a forked child never writes to its parent's
        fd = _files[pid] = os.open(_folder[0] / str(pid), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    # One short line per append: whole, whatever the reader sees mid-run.
    os.write(fd, f"{task.name} {count}\n".encode())


def install(home: Path) -> None:
    """Count from now on, in this process and the pool processes it forks, into `home`'s folder."""
    folder = home / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    _folder.append(folder)
    event.listen(Engine, "before_cursor_execute", _one)
    for name in ("begin", "commit", "rollback"):
        event.listen(Engine, name, _transaction)
    task_postrun.connect(_after_task, weak=False)


def read(home: Path) -> dict[str, int]:
    """The counts so far, by task name, summed over every process that counted under `home`."""
    totals: collections.Counter[str] = collections.Counter()
    folder = home / FOLDER
    if not folder.is_dir():
        return {}
    for path in folder.iterdir():
        for line in path.read_text().splitlines():
            name, _, count = line.rpartition(" ")
            if name and count.isdigit():
                totals[name] += int(count)
    return dict(totals)
