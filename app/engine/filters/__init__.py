"""Event filters: a JSON grammar over event payloads, compiled once into closures.

Public API: `compile_filter`, `check_filter`, `FILTER_SCHEMA`, `FilterError`, and the limits.
The grammar is documented for users in docs/filters.md.
"""

from app.definitions.filter_schema import FILTER_SCHEMA
from app.engine.filters.compiler import check_filter, compile_filter
from app.engine.filters.limits import (
    MAX_DEPTH,
    MAX_LIST_ITEMS,
    MAX_NODES,
    MAX_PATH_LENGTH,
    MAX_PATH_SEGMENTS,
    MAX_PATTERN_LENGTH,
    MAX_PROBLEMS,
    MAX_REGEXES,
    MAX_TEXT_LENGTH,
    FilterError,
)
from app.engine.filters.operators import OPERATORS

__all__ = [
    "FILTER_SCHEMA",
    "MAX_DEPTH",
    "MAX_LIST_ITEMS",
    "MAX_NODES",
    "MAX_PATH_LENGTH",
    "MAX_PATH_SEGMENTS",
    "MAX_PATTERN_LENGTH",
    "MAX_PROBLEMS",
    "MAX_REGEXES",
    "MAX_TEXT_LENGTH",
    "OPERATORS",
    "FilterError",
    "check_filter",
    "compile_filter",
]
