"""The CPU cores this process may run on, which the default process counts follow."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """Cores the scheduler lets this process use: a container or `taskset` limited to two cores of a
    64-core host counts two, where `os.cpu_count()` would count the host's 64."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1
