"""Declarative base with deterministic constraint names, so migrations name things predictably."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import ColumnElement, DateTime, MetaData, func, literal_column
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_N_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def constant(value: str) -> ColumnElement[str]:
    """A string written into the SQL text instead of bound as a parameter.

    A partial index is only usable when the planner can prove its predicate (`WHERE status = 'queued'`)
    from the query. With a bound value it can in a custom plan, but not in the generic plan PostgreSQL
    settles on for a prepared statement run many times: the hot statements then scanned the whole table
    (the finish statement took 20-45 ms per run once runs and schedule triggers numbered in the 10,000s).
    Only for the code's own constants, never for user input.
    """
    return literal_column("'" + value.replace("'", "''") + "'")


def utcnow() -> datetime:
    """Timezone-aware now; every timestamp in the database is UTC."""
    return datetime.now(UTC)


class Base(DeclarativeBase):
    """Base of all models."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: DateTime(timezone=True)}


class IdMixin:
    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)


class TimestampMixin:
    created_at: Mapped[datetime] = mapped_column(server_default=func.now(), default=utcnow, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(
        server_default=func.now(), default=utcnow, onupdate=utcnow, nullable=False
    )
