"""The microbenchmarks run and print their table (tiny N; no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("module", ["bench.bench_templating", "bench.bench_filters"])
def test_benchmark_runs_and_prints_a_ratio_table(module: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", module, "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    table = [line for line in result.stdout.splitlines() if line.startswith("|")]
    assert len(table) >= 3, result.stdout
    assert "ratio" in result.stdout.lower()
