"""The document extractors' libraries (pypdf, python-docx, BeautifulSoup) load on an extractor's first call,
not when an api or worker process starts: they are about a sixth of such a process's memory, and only
indexing a document of their format needs them."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.processes import ROOT

EXTRACTOR_LIBRARIES = ("bs4", "pypdf", "docx")

PROBE = """
import json, sys

def loaded():
    return sorted({{name.split(".")[0] for name in sys.modules}} & set({libraries!r}))

import app.main
import app.worker.celery_app
import app.worker.tasks

app.main.create_app()
at_start = loaded()

from app.services.knowledge.extract import extract_text

text = extract_text("html", b"<p>dynamos</p><script>x()</script>", max_chars=100)
print(json.dumps({{"at_start": at_start, "after_html": loaded(), "text": text}}))
"""


def test_an_api_or_worker_process_starts_without_the_extractors_and_loads_one_on_first_use() -> None:
    probe = PROBE.format(libraries=EXTRACTOR_LIBRARIES)
    answer = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert answer.returncode == 0, answer.stderr[-3000:]
    found = json.loads(answer.stdout.strip().splitlines()[-1])
    assert found["at_start"] == [], f"starting a process loaded extractor libraries: {found['at_start']}"
    assert found["after_html"] == ["bs4"]
    assert found["text"] == "dynamos"
