"""Request → definition pairs users can start from, and the generator's few-shot examples.

They are the definitions in the repository's `examples/` folder; each one's `goal` is the request.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_CANDIDATES = (Path(__file__).resolve().parents[2] / "examples", Path.cwd() / "examples")


@cache
def authoring_examples() -> tuple[dict[str, Any], ...]:
    """Each example as {name, request, definition}, sorted by file name; () when none are installed."""
    for folder in _CANDIDATES:
        if folder.is_dir():
            return tuple(_load(path) for path in sorted(folder.glob("*.json")))
    return ()


def _load(path: Path) -> dict[str, Any]:
    definition = json.loads(path.read_text())
    return {
        "name": path.stem,
        "request": definition.get("goal") or definition["name"],
        "definition": definition,
    }
