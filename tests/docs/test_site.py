"""The documentation site builds with `mkdocs build --strict`: a page left out of the navigation, a link
to a page or repository file that does not exist, or an anchor no heading makes fails the build, and so
this test. The build is offline (the search index is built locally; no plugin fetches anything)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# What the site is built from; the repository files its pages link to are copied beside them.
SITE_SOURCES = ("mkdocs.yml", "mkdocs_hooks.py", "README.md", "docs")
LINKED_FILES = ("examples", "bench/README.md", "deploy/kubernetes/README.md")


def _build(root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(root / "mkdocs.yml"),
         "--site-dir", str(site)],
        capture_output=True, text=True, env=env, check=False, timeout=300,
    )  # fmt: skip


def _copy_of_the_sources(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for name in (*SITE_SOURCES, *LINKED_FILES):
        source, target = ROOT / name, root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copy(source, target)
    return root


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    built = _build(ROOT, tmp_path / "site")
    assert built.returncode == 0, built.stderr
    assert "WARNING" not in built.stderr, built.stderr
    home = (tmp_path / "site" / "index.html").read_text()
    assert "A five-minute tour" in home, "the README is the site's home page"
    assert (tmp_path / "site" / "search" / "search_index.json").exists()
    assert (tmp_path / "site" / "settings" / "index.html").exists()


# Each a way the docs break: (page, what is added to it, what the build names in its warning).
BREAKAGES = (
    ("runs.md", "[gone](no-such-page.md)", "no-such-page.md"),
    ("runs.md", "[gone](triggers.md#no-such-heading)", "no-such-heading"),
    ("artifacts.md", "[gone](../examples/no_such_example.json)", "no_such_example.json"),
    ("orphan.md", "# A page nobody listed", "orphan.md"),
)


def test_a_dead_link_a_dead_anchor_or_an_unlisted_page_fails_the_build(tmp_path: Path) -> None:
    # One build for all of them (each build takes seconds): strict mode reports every warning, then fails.
    root = _copy_of_the_sources(tmp_path)
    for page, added, _ in BREAKAGES:
        path = root / "docs" / page
        path.write_text((path.read_text() if path.exists() else "") + f"\n\n{added}\n")

    built = _build(root, tmp_path / "site")
    assert built.returncode != 0
    for _, _, reported in BREAKAGES:
        assert reported in built.stderr, f"{reported} not reported:\n{built.stderr}"
