"""What a harvested tool becomes: its capability id, its risk, its schema hash, or why it is unusable.

Annotations come from a server we do not control: they set defaults (the risk hint, the destructive
flag), never enforcement. Only an explicit `readOnlyHint: true` makes a tool `read`.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from app.definitions.json_schema import check_schema_document
from app.registry.models import MAX_ID_LENGTH, RESERVED_FIRST_SEGMENTS

PREFIX_PATTERN = r"^[a-z][a-z0-9_]{0,39}$"
_PREFIX = re.compile(PREFIX_PATTERN)
_NOT_ID = re.compile(r"[^a-z0-9_]+")
# Keywords that describe rather than constrain: changing them is not drift.
_DESCRIPTIVE = frozenset({"description", "title", "default", "enum"})
# Keywords whose value maps names (of properties, definitions) to schemas: their keys are names, not
# keywords, so a property called "title" is kept.
_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
SAFETY_HINTS = ("readOnlyHint", "destructiveHint")


def prefix_problem(prefix: str) -> str | None:
    """Why a tool prefix cannot be used, or None."""
    if not _PREFIX.fullmatch(prefix):
        return f"must match {PREFIX_PATTERN} (lowercase letters, digits, _; starting with a letter)"
    if prefix in RESERVED_FIRST_SEGMENTS:
        return f"{prefix!r} names a tier ({', '.join(sorted(RESERVED_FIRST_SEGMENTS))}); choose another"
    return None


def capability_id_for(prefix: str, tool_name: str) -> str | None:
    """`<prefix>.<tool name sanitised>`: lowercase, other characters as `_`; None if nothing is left."""
    name = _NOT_ID.sub("_", tool_name.lower()).strip("_")
    if not name:
        return None
    if not name[0].isalpha():
        name = f"t_{name}"
    room = MAX_ID_LENGTH - len(prefix) - 1
    name = name[:room].rstrip("_")
    return f"{prefix}.{name}" if name else None


def _constraints_only(value: Any, *, names: bool = False) -> Any:
    if isinstance(value, dict):
        if names:
            return {key: _constraints_only(item) for key, item in value.items()}
        return {
            key: _constraints_only(item, names=key in _NAME_MAPS)
            for key, item in value.items()
            if key not in _DESCRIPTIVE
        }
    if isinstance(value, list):
        return [_constraints_only(item) for item in value]
    return value


def safety_annotations(annotations: dict[str, Any]) -> dict[str, Any]:
    """The annotations that change what a call may do: `readOnlyHint` and `destructiveHint`, as sent."""
    return {key: annotations[key] for key in SAFETY_HINTS if key in annotations}


def schema_hash(input_schema: Any, output_schema: Any, annotations: dict[str, Any]) -> str:
    """SHA-256 of the input and output schemas and the safety annotations, serialised with sorted keys,
    every descriptive keyword (`description`, `title`, `default`, `enum`) removed at any depth."""
    document = {
        "input_schema": _constraints_only(input_schema),
        "output_schema": _constraints_only(output_schema),
        "annotations": safety_annotations(annotations),
    }
    serialised = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(serialised.encode("utf-8")).hexdigest()


def risk_hint(annotations: dict[str, Any]) -> str:
    """`read` only for an explicit `readOnlyHint: true`; anything else (the spec's default too) is `write`."""
    return "read" if annotations.get("readOnlyHint") is True else "write"


def is_destructive(annotations: dict[str, Any]) -> bool:
    """From `destructiveHint`; a tool that does not say is destructive unless it is read-only."""
    hint = annotations.get("destructiveHint")
    if isinstance(hint, bool):
        return hint and risk_hint(annotations) == "write"
    return risk_hint(annotations) == "write"


def schema_problem(input_schema: Any, output_schema: Any) -> str | None:
    """Why the tool's schemas cannot be used as a capability's, or None."""
    for label, schema, required in (
        ("inputSchema", input_schema, True),
        ("outputSchema", output_schema, False),
    ):
        if schema is None and not required:
            continue
        if not isinstance(schema, dict):
            return f"{label} is not a JSON Schema object"
        try:
            check_schema_document(schema)
            json.dumps(schema, allow_nan=False)
        except (ValueError, TypeError) as exc:
            return f"{label} is not a valid JSON Schema: {str(exc)[:300]}"
    return None
