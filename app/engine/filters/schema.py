"""The filter grammar as a JSON Schema (draft 2020-12), generated from the operator table.

The generated document is stored as data in `app/definitions/filter_schema.json` (what the registry
and the API use, see `app.definitions.filter_schema`); `write_filter_schema` regenerates that file.

The nesting limit is spelled out as one `$defs` entry per level, so the schema refuses a document
that nests too deep exactly as the compiler does. Three limits have no JSON Schema keyword and are
enforced by the compiler only: the node budget, the number of regex operators, and RE2's pattern
syntax (plus finite numbers, which JSON guarantees anyway).
"""

from __future__ import annotations

import json
from typing import Any

from app.definitions.filter_schema import FILTER_SCHEMA_PATH
from app.engine.filters.limits import (
    MAX_DEPTH,
    MAX_NODES,
    MAX_PATH_LENGTH,
    MAX_PATH_SEGMENTS,
    MAX_REGEXES,
)
from app.engine.filters.operators import OPERANDS, OPERATORS

# First segment cannot start with `$` (reserved for $and/$or/$not); no segment is empty.
PATH_PATTERN = rf"^[^.$][^.]*(\.[^.]+){{0,{MAX_PATH_SEGMENTS - 1}}}$"


def _level_name(level: int) -> str:
    return f"filter_depth_{level}"


def _document(level: int) -> dict[str, Any]:
    composition: dict[str, Any] = {}
    if level < MAX_DEPTH:
        child = {"$ref": f"#/$defs/{_level_name(level + 1)}"}
        children = {"type": "array", "minItems": 1, "maxItems": MAX_NODES, "items": child}
        composition = {
            "$and": {**children, "description": "Every filter matches."},
            "$or": {**children, "description": "At least one filter matches."},
            "$not": {**child, "description": "The filter does not match."},
        }
    return {
        "type": "object",
        "description": f"A filter document at nesting level {level} of {MAX_DEPTH}: every entry must match.",
        "maxProperties": MAX_NODES,
        "propertyNames": {"maxLength": MAX_PATH_LENGTH},
        "properties": composition,
        "patternProperties": {PATH_PATTERN: {"$ref": "#/$defs/condition"}},
        "additionalProperties": False,
    }


def build_filter_schema() -> dict[str, Any]:
    """The grammar's JSON Schema, built from the operator table and the limits."""
    defs: dict[str, Any] = {operand.name: operand.schema for operand in OPERANDS}
    defs["operators"] = {
        "type": "object",
        "description": "Operators applied to the value at a path; all of them must hold.",
        "minProperties": 1,
        "properties": {
            name: {"$ref": f"#/$defs/{spec.operand.name}", "description": spec.description}
            for name, spec in OPERATORS.items()
        },
        "additionalProperties": False,
    }
    defs["condition"] = {
        "description": 'An object of operators, or a scalar meaning {"equals": scalar}.',
        "anyOf": [{"$ref": "#/$defs/operators"}, {"$ref": "#/$defs/scalar"}],
    }
    for level in range(1, MAX_DEPTH + 1):
        defs[_level_name(level)] = _document(level)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:automations:filter:1.0",
        "title": "Event filter",
        "description": "Keys are $and/$or/$not or dotted payload paths; all entries must match.",
        "$comment": (
            f"Also enforced when a filter is saved: at most {MAX_NODES} nodes (documents and operators), "
            f"at most {MAX_REGEXES} regex operators, patterns in RE2 syntax, finite numbers."
        ),
        "$ref": f"#/$defs/{_level_name(1)}",
        "$defs": defs,
    }


def write_filter_schema() -> None:
    """Regenerate `app/definitions/filter_schema.json` after a change to the operators or limits."""
    text = json.dumps(build_filter_schema(), indent=1, sort_keys=True) + "\n"
    FILTER_SCHEMA_PATH.write_text(text, encoding="utf-8")
