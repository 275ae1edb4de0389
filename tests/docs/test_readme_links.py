"""Every relative link of the README resolves: the file exists and, for a page of docs/, so does the
heading its anchor names (GitHub's anchors, the ones the site uses too)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:)([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", flags=re.DOTALL | re.MULTILINE)


def _links(text: str) -> list[str]:
    return LINK.findall(FENCE.sub("", text))


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, each space a hyphen."""
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of a Markdown page's headings, repeated ones numbered as GitHub numbers them."""
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+)$", FENCE.sub("", page.read_text()), flags=re.MULTILINE):
        anchor = github_anchor(heading)
        candidate, n = anchor, 0
        while candidate in found:
            n += 1
            candidate = f"{anchor}-{n}"
        found.add(candidate)
    return found


def unresolved(text: str, base: Path) -> list[str]:
    """The relative links of a text that point at no file, or at no heading of a Markdown page."""
    problems = []
    for link in _links(text):
        path, _, fragment = link.partition("#")
        target = (base / path).resolve() if path else README
        if not target.exists():
            problems.append(f"{link}: no such file")
        elif fragment and target.suffix == ".md" and fragment not in anchors(target):
            problems.append(f"{link}: no heading makes #{fragment}")
    return problems


def test_the_readme_links_resolve() -> None:
    text = README.read_text()
    assert [link for link in _links(text) if link.startswith("docs/")], "the README points into docs/"
    assert unresolved(text, ROOT) == []


def test_the_readme_shows_the_two_commands() -> None:
    text = README.read_text()
    assert "make run" in text
    assert "make test" in text


@pytest.mark.parametrize(
    ("link", "problem"),
    [("docs/no-such-page.md", "no such file"), ("docs/runs.md#no-such-heading", "no heading makes")],
)
def test_a_dead_link_is_reported(link: str, problem: str) -> None:
    [reported] = unresolved(f"See [this]({link}).", ROOT)
    assert problem in reported


def test_anchors_are_githubs() -> None:
    assert github_anchor("Live runs: `GET /api/v1/spaces/{space}/runs/events`") == (
        "live-runs-get-apiv1spacesspacerunsevents"
    )
    assert "lifecycle" in anchors(ROOT / "docs" / "runs.md")
