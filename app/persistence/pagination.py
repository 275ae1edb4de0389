"""Keyset (cursor) pagination: stable under inserts, O(page) regardless of table size."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from sqlalchemy import BigInteger, ColumnElement, Select, and_, or_, tuple_
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from app.errors import BadRequest, ErrorDetail

T = TypeVar("T")
_INT32_BOUND = 2**31
_INT64_BOUND = 2**63


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of results and the opaque cursor of the next one (None on the last page)."""

    items: list[T]
    next_cursor: str | None


def _encode(values: Sequence[Any]) -> str:
    plain = [
        v.isoformat() if isinstance(v, datetime) else str(v) if isinstance(v, uuid.UUID) else v
        for v in values
    ]
    return base64.urlsafe_b64encode(json.dumps(plain, separators=(",", ":")).encode()).decode().rstrip("=")


def _decode(cursor: str, columns: Sequence[InstrumentedAttribute[Any]]) -> list[Any]:
    """The key values a cursor carries; anything but what `_encode` writes for these columns is a 400.

    A cursor is user input: each value must have its column's type and range, or it would reach the
    database as a parameter it refuses (a 500) or compare against the wrong kind of value.
    """
    invalid = BadRequest(
        "The cursor is not valid for this listing.",
        code="invalid_cursor",
        details=[ErrorDetail(path="/query/cursor", message="use next_cursor from a previous page")],
    )
    try:
        raw = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if not isinstance(raw, list) or len(raw) != len(columns):
            raise invalid
        values = [_key_value(column, value) for column, value in zip(columns, raw, strict=True)]
    except (ValueError, TypeError, OverflowError):
        raise invalid from None
    if any(value is None for value in values):
        raise invalid
    return values


def _key_value(column: InstrumentedAttribute[Any], value: Any) -> Any:
    """`value` as the column's Python type, or None when it is not one `_encode` could have written."""
    python_type = column.type.python_type
    if python_type is datetime and isinstance(value, str):
        moment = datetime.fromisoformat(value)
        # In UTC, as the database compares it: an offset that pushes it past year 9999 overflows here.
        return moment.astimezone(UTC) if moment.tzinfo is not None else None
    if python_type is uuid.UUID and isinstance(value, str):
        return uuid.UUID(value)
    if python_type is int and isinstance(value, int) and not isinstance(value, bool):
        bound = _INT64_BOUND if isinstance(column.type, BigInteger) else _INT32_BOUND
        return value if -bound <= value < bound else None
    if python_type is str and isinstance(value, str):
        # Text PostgreSQL cannot compare (NUL, lone surrogates) is a bad cursor, not a 500.
        value.encode("utf-8")
        return value if "\x00" not in value else None
    return None


async def paginate(
    session: AsyncSession,
    statement: Select[T],
    *,
    order_by: Sequence[InstrumentedAttribute[Any]],
    limit: int,
    cursor: str | None,
    descending: bool | Sequence[bool] = True,
) -> Page[T]:
    """Fetch `limit` rows after `cursor`, ordered by `order_by` (a unique key, newest first by default).

    `descending` may give each column its own direction (the queue: priority down, then age up)."""
    directions = [descending] * len(order_by) if isinstance(descending, bool) else list(descending)
    if cursor:
        statement = statement.where(_after(order_by, _decode(cursor, order_by), directions))
    ordering = [
        column.desc() if down else column.asc() for column, down in zip(order_by, directions, strict=True)
    ]
    rows = list((await session.scalars(statement.order_by(*ordering).limit(limit + 1))).all())
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        last = rows[-1]
        next_cursor = _encode([getattr(last, column.key) for column in order_by])
    return Page(items=rows, next_cursor=next_cursor)


def _after(
    columns: Sequence[InstrumentedAttribute[Any]], values: Sequence[Any], directions: Sequence[bool]
) -> ColumnElement[bool]:
    """Rows past `values` in the order of `columns`: one row comparison when every column goes the same
    way (an index reads it as a range), else the expanded form (equal on a prefix, past on the next)."""
    if len(set(directions)) == 1:
        key, after = tuple_(*columns), tuple_(*values)
        return key < after if directions[0] else key > after
    clauses = [
        and_(
            *(columns[j] == values[j] for j in range(i)),
            columns[i] < values[i] if directions[i] else columns[i] > values[i],
        )
        for i in range(len(columns))
    ]
    return or_(*clauses)
