"""`automations export` and `automations apply` are clients of the REST API: they start without loading the
server's side (the capability registry, the database layer, the web framework, the LLM client).

A CI job runs them once per change, and every module they import is start-up time paid on each call. This
runs both commands in a fresh interpreter, as far as their first request, and lists what got loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.processes import ROOT

# The server's side: none of these serves a client command.
SERVER_MODULES = (
    "app.registry",
    "app.persistence",
    "app.api",
    "sqlalchemy",
    "fastapi",
    "celery",
    "litellm",
)

PROBE = """
import json, sys

from app.cli import main

SERVER = {server!r}
exits = []
for args in (["export", "space", {folder!r}], ["apply", {folder!r}, "--space", "space"]):
    try:
        main.main(args, standalone_mode=False)
    except SystemExit as exc:
        exits.append(exc.code)
loaded = sorted({{name.split(".")[0] if not name.startswith("app.") else ".".join(name.split(".")[:2])
                 for name in sys.modules}} & set(SERVER))
print(json.dumps({{"exits": exits, "loaded": loaded}}))
"""


def test_export_and_apply_start_without_the_server_side(tmp_path: Path) -> None:
    # Nothing answers on port 9 of loopback, and the folder has no files: both commands stop at their
    # first step that needs the server or a file, after their imports.
    env = {"AUTOMATIONS_URL": "http://127.0.0.1:9", "AUTOMATIONS_TOKEN": "any", "PATH": "/usr/bin:/bin"}
    probe = PROBE.format(server=SERVER_MODULES, folder=str(tmp_path))
    answer = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert answer.returncode == 0, answer.stderr[-3000:]
    found = json.loads(answer.stdout.strip().splitlines()[-1])
    assert found["exits"] == [1, 1], answer.stderr[-3000:]
    assert found["loaded"] == [], f"a client command loaded the server's side: {found['loaded']}"
