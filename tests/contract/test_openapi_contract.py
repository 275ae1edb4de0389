"""schemathesis against the running API's /openapi.json: authenticated, every route, every phase, every
check the installed schemathesis offers (`--checks all`), bounded examples.

It must find no 5xx, no answer that breaks its documented schema, status, headers or content type, no
schema-valid request refused and no schema-violating request accepted. The few operations whose
refusals depend on data no schema can state are listed, each with its reason, in schemathesis.toml;
a listing's cursor is handled in hooks.py. The run is bounded (examples per operation, two workers) to
stay within a few minutes on two cores; its full report is written under tests/output/contract/.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.processes import ROOT
from tests.ui.conftest import Owner
from tests.ui.space_api import FIRST_MODEL_ANSWER_MS, space_api

REPORT_DIR = ROOT / "tests" / "output" / "contract"
CONFIG = Path(__file__).with_name("schemathesis.toml")
# Left out: the live stream never ends (a request would only time out), and signing out or revoking
# a token would revoke the token the run itself uses.
EXCLUDED_PATHS = r"(/runs/events$|/auth/sessions/current$|/tokens/\{token_id\}/revoke$)"


def _schemathesis(ui_base: str, owner: Owner) -> subprocess.CompletedProcess[str]:
    """One schemathesis run against the live API with every check."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "--config-file",
            str(CONFIG),
            "run",
            f"{ui_base}/openapi.json",
            "--header",
            f"Authorization: Bearer {owner.token}",
            "--checks",
            "all",
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "--max-examples",
            "5",
            "--workers",
            "2",
            "--seed",
            "20261123",
            "--generation-deterministic",
            "--exclude-path-regex",
            EXCLUDED_PATHS,
            "--request-timeout",
            # A draft asks the loopback model more than once; on a busy machine that takes a while.
            "60",
            "--no-color",
            "--report",
            "junit",
            "--report-dir",
            str(REPORT_DIR),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def _only_generator_race(output: str) -> bool:
    """Hypothesis describes a strategy's lambda by parsing its source with `ast`; two worker threads
    doing so at once can trip Python's AST recursion guard ("AST constructor recursion depth
    mismatch"), a runtime error inside the generator, not an answer of the API. Such a run, with no
    failure found, is run once more."""
    return "AST constructor recursion depth mismatch" in output and "=== FAILURES ===" not in output


@pytest.mark.timeout(900)
def test_the_running_api_keeps_its_openapi_contract(ui_base: str, owner: Owner) -> None:
    REPORT_DIR.mkdir(parents=True, exist_ok=True)
    # The API loads its model client on the first draft request; load it now, so that the run's
    # request timeout judges the routes rather than that one-time load on a busy machine.
    space_api(
        ui_base,
        owner,
        "POST",
        "/drafts",
        json={"request": "say hello"},
        check=False,
        timeout=FIRST_MODEL_ANSWER_MS / 1000,
    )
    result = _schemathesis(ui_base, owner)
    if result.returncode != 0 and _only_generator_race(result.stdout + result.stderr):
        result = _schemathesis(ui_base, owner)
    output = result.stdout + result.stderr
    (REPORT_DIR / "output.txt").write_text(output)
    assert result.returncode == 0, output[-20000:]
