"""Encoding a step's JSON value as a file: JSON as it is, or CSV from a list of rows."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from app.definitions.signals import StepError


def encode_data(value: Any, file_format: str) -> tuple[bytes, str]:
    """(file bytes, content type) of `value` as `json` or `csv`.

    CSV takes a list of objects (the columns are their keys, in order of first appearance) or a list of
    lists (rows as they are); anything else fails the step. Nested values are written as JSON text.
    """
    if file_format == "json":
        return json.dumps(value, ensure_ascii=False, indent=2).encode("utf-8"), "application/json"
    if not isinstance(value, list):
        raise StepError("invalid_csv", "CSV needs a list of rows (objects or lists)", retryable=False)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    if all(isinstance(row, dict) for row in value):
        columns: list[str] = []
        for row in value:
            columns.extend(key for key in row if key not in columns)
        writer.writerow(columns)
        for row in value:
            writer.writerow([_cell(row.get(column)) for column in columns])
    elif all(isinstance(row, list) for row in value):
        for row in value:
            writer.writerow([_cell(cell) for cell in row])
    else:
        raise StepError("invalid_csv", "CSV rows must all be objects or all be lists", retryable=False)
    return buffer.getvalue().encode("utf-8"), "text/csv; charset=utf-8"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False)
