"""MkDocs hooks of the documentation site (mkdocs.yml).

- The README is the site's home page: it is added as index.md, its links into docs/ made site-relative,
  so the front door is written once.
- Links to files of the repository outside docs/ (examples, bench, deploy) are checked: a missing file is
  a warning, so `mkdocs build --strict` fails on it as on any dead link. With `repo_url` set they point at
  the file there; without it they become the file's path in code, since the site does not serve them.
"""

from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.repo_links")

# [label](target) where target is relative: not a scheme, not an anchor, not site-absolute.
_LINK = re.compile(r"(!?)\[([^\]]*)\]\((?![a-z][a-z0-9+.-]*:|#|/)([^)\s]+)\)")


def readme_as_home(text: str) -> str:
    """README.md as docs/index.md: links into docs/ lose their prefix, others become repository links."""

    def relink(match: re.Match[str]) -> str:
        bang, label, target = match.groups()
        target = target[len("docs/") :] if target.startswith("docs/") else f"../{target}"
        return f"{bang}[{label}]({target})"

    return _LINK.sub(relink, text)


def _root(config: Any) -> Path:
    """The repository: the folder of mkdocs.yml."""
    return Path(config.config_file_path).resolve().parent


def on_files(files: Files, config: Any) -> Files:
    """Add the README as the home page."""
    readme = (_root(config) / "README.md").read_text()
    files.append(File.generated(config, "index.md", content=readme_as_home(readme)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Check and rewrite the page's links to repository files outside docs/."""
    docs_dir = Path(config["docs_dir"]).resolve()
    root = _root(config)
    page_dir = posixpath.dirname(page.file.src_uri)
    repo_url = (config.get("repo_url") or "").rstrip("/")

    def relink(match: re.Match[str]) -> str:
        bang, label, target = match.groups()
        path, _, fragment = target.partition("#")
        resolved = (docs_dir / page_dir / path).resolve()
        if resolved.is_relative_to(docs_dir):
            return match.group(0)  # a page or file of the site: MkDocs checks it
        if not resolved.is_relative_to(root) or not resolved.exists():
            log.warning(
                "Doc file '%s' links to '%s', not a file of the repository", page.file.src_uri, target
            )
            return match.group(0)
        relative = resolved.relative_to(root).as_posix()
        if repo_url:
            anchor = f"#{fragment}" if fragment else ""
            return f"{bang}[{label}]({repo_url}/blob/main/{relative}{anchor})"
        return label if label.strip("`") == relative else f"{label} (`{relative}`)"

    return _LINK.sub(relink, markdown)
