"""Keyset (cursor) pagination: stable under inserts, O(page) regardless of table size."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from sqlalchemy import Select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from app.errors import BadRequest, ErrorDetail

T = TypeVar("T")


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
    invalid = BadRequest(
        "The cursor is not valid for this listing.",
        code="invalid_cursor",
        details=[ErrorDetail(path="/cursor", message="use next_cursor from a previous page")],
    )
    try:
        raw = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if not isinstance(raw, list) or len(raw) != len(columns):
            raise invalid
        values: list[Any] = []
        for column, value in zip(columns, raw, strict=True):
            python_type = column.type.python_type
            if python_type is datetime:
                values.append(datetime.fromisoformat(value))
            elif python_type is uuid.UUID:
                values.append(uuid.UUID(value))
            elif python_type is int and isinstance(value, int) and not isinstance(value, bool):
                values.append(value)
            elif python_type is str and isinstance(value, str):
                # Text PostgreSQL cannot compare (NUL, lone surrogates) is a bad cursor, not a 500.
                if "\x00" in value:
                    raise invalid
                value.encode("utf-8")
                values.append(value)
            else:
                raise invalid
    except (ValueError, TypeError, UnicodeDecodeError):
        raise invalid from None
    return values


async def paginate(
    session: AsyncSession,
    statement: Select[T],
    *,
    order_by: Sequence[InstrumentedAttribute[Any]],
    limit: int,
    cursor: str | None,
    descending: bool = True,
) -> Page[T]:
    """Fetch `limit` rows after `cursor`, ordered by `order_by` (a unique key, newest first by default)."""
    key = tuple_(*order_by)
    if cursor:
        after = tuple_(*_decode(cursor, order_by))
        statement = statement.where(key < after if descending else key > after)
    ordering = [column.desc() if descending else column.asc() for column in order_by]
    rows = list((await session.scalars(statement.order_by(*ordering).limit(limit + 1))).all())
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        last = rows[-1]
        next_cursor = _encode([getattr(last, column.key) for column in order_by])
    return Page(items=rows, next_cursor=next_cursor)
