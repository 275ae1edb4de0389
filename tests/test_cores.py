"""Default process counts follow the cores a process may run on, not the host's: a container limited to
one core of a larger machine starts one api process and two pool processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support.processes import ROOT

PROBE = """
import json, os
from app.cli import api_workers
from app.config import Settings
from app.worker.celery_app import default_concurrency

settings = Settings(environment="development", api_workers=None)
print(json.dumps({"cores": len(os.sched_getaffinity(0)),
                  "api": api_workers(None, settings), "pool": default_concurrency()}))
"""


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
def test_a_process_pinned_to_one_core_defaults_to_one_api_process_and_two_pool_processes() -> None:
    answer = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}),
    )
    assert answer.returncode == 0, answer.stderr[-3000:]
    found = json.loads(answer.stdout.strip().splitlines()[-1])
    assert found["cores"] == 1
    assert (found["api"], found["pool"]) == (1, 2)
