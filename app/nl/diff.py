"""How a proposal differs from what it replaces: an RFC 6902 JSON Patch and a unified text diff."""

from __future__ import annotations

import difflib
import json
from typing import Any

import jsonpatch

from app.nl.drafts import DraftDiff


def definition_diff(before: dict[str, Any], after: dict[str, Any], *, label: str = "current") -> DraftDiff:
    """The patch that turns `before` into `after`, and the pretty-printed JSON of both compared by line."""
    patch = jsonpatch.make_patch(before, after).patch
    old = _pretty(before).splitlines(keepends=True)
    new = _pretty(after).splitlines(keepends=True)
    unified = "".join(difflib.unified_diff(old, new, fromfile=label, tofile="proposed"))
    return DraftDiff(patch=patch, unified=unified)


def _pretty(value: dict[str, Any]) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
