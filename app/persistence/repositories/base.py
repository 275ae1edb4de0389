"""Repository base: domain repositories only build statements; this runs them."""

from __future__ import annotations

import functools
from typing import Any, Generic, TypeVar

from sqlalchemy import Insert, Select, Table, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.persistence.base import Base

ModelT = TypeVar("ModelT", bound=Base)


@functools.cache
def _insert_into(table: Table) -> Insert:
    return insert(table)


@functools.cache
def _column_keys(table: Table) -> frozenset[str]:
    return frozenset(table.c.keys())


class RepositoryBase(Generic[ModelT]):
    """Common queries over one model, bound to the caller's session (the caller owns the transaction)."""

    model: type[ModelT]

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    def base_statement(self) -> Select[ModelT]:
        return select(self.model)

    async def get_one_or_none(self, statement: Select[ModelT]) -> ModelT | None:
        return (await self.session.scalars(statement.limit(2))).one_or_none()

    async def get_all(self, statement: Select[ModelT]) -> list[ModelT]:
        return list((await self.session.scalars(statement)).all())

    async def create(self, obj: ModelT, *, flush: bool = True) -> ModelT:
        self.session.add(obj)
        if flush:
            await self.session.flush()
        return obj

    async def insert(self, obj: ModelT) -> ModelT:
        """Write a new row from the attributes set on `obj` with one Core INSERT; `obj` stays out of the
        session. For hot paths that never read the row back: the session's flush costs more CPU than
        the statement's round trip. Column defaults apply to the attributes left unset."""
        table: Table = self.model.__table__  # type: ignore[assignment]
        keys = _column_keys(table)
        values = {key: value for key, value in vars(obj).items() if key in keys}
        await self.session.execute(_insert_into(table), values)
        return obj

    async def update(self, obj: ModelT, values: dict[str, Any], *, flush: bool = True) -> ModelT:
        for key, value in values.items():
            setattr(obj, key, value)
        if flush:
            await self.session.flush()
        return obj
