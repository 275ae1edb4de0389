"""The filter grammar's schema is data below the registry; the operator table must still produce it."""

from __future__ import annotations

from app.definitions.filter_schema import FILTER_SCHEMA
from app.engine.filters.schema import build_filter_schema


def test_the_stored_schema_is_what_the_operator_table_generates() -> None:
    # On failure: python -c "from app.engine.filters.schema import write_filter_schema; write_filter_schema()"
    assert build_filter_schema() == FILTER_SCHEMA


def test_the_generated_schema_is_a_fresh_copy() -> None:
    built = build_filter_schema()
    built["$defs"].clear()
    assert build_filter_schema()["$defs"]
