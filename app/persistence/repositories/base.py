"""Repository base: domain repositories only build statements; this runs them."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.persistence.base import Base

ModelT = TypeVar("ModelT", bound=Base)


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

    async def update(self, obj: ModelT, values: dict[str, Any], *, flush: bool = True) -> ModelT:
        for key, value in values.items():
            setattr(obj, key, value)
        if flush:
            await self.session.flush()
        return obj
