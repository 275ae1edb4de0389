"""Queries over a space's input defaults: always within one space."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Select, bindparam, delete, func, select
from sqlalchemy.dialects.postgresql import insert

from app.persistence.models import SpaceInputDefault
from app.persistence.repositories.base import RepositoryBase

# New names of one space are counted and added by one writer at a time (with the space's id), so two
# concurrent writers cannot both take the last slot.
_DEFAULTS_LOCK_NAMESPACE = 0x7364


# Read each time a space's definition is checked (`app.services.automations.vocabulary`): built once,
# its values bound at execution, since building a statement costs SQLAlchemy more CPU than running it.
_NAMES = select(SpaceInputDefault.name).where(SpaceInputDefault.space_id == bindparam("space_id"))


class InputDefaultRepository(RepositoryBase[SpaceInputDefault]):
    model = SpaceInputDefault

    def space_statement(self, space_id: uuid.UUID) -> Select[SpaceInputDefault]:
        """The space's defaults, by name: the one place a query of them is scoped."""
        return select(SpaceInputDefault).where(SpaceInputDefault.space_id == space_id)

    async def in_space(self, space_id: uuid.UUID) -> list[SpaceInputDefault]:
        return await self.get_all(self.space_statement(space_id).order_by(SpaceInputDefault.name))

    async def values(self, space_id: uuid.UUID, names: list[str]) -> dict[str, Any]:
        """The values of those of `names` the space has set: one round trip, for a fire."""
        rows = await self.session.execute(
            select(SpaceInputDefault.name, SpaceInputDefault.value).where(
                SpaceInputDefault.space_id == space_id, SpaceInputDefault.name.in_(names)
            )
        )
        return dict(rows.all())

    async def names(self, space_id: uuid.UUID) -> frozenset[str]:
        return frozenset(await self.session.scalars(_NAMES, {"space_id": space_id}))

    async def lock(self, space_id: uuid.UUID) -> None:
        """Until the transaction ends, new names of this space are counted and added by one writer."""
        await self.session.execute(
            select(func.pg_advisory_xact_lock(_DEFAULTS_LOCK_NAMESPACE, func.hashtext(str(space_id))))
        )

    async def upsert(
        self, space_id: uuid.UUID, name: str, value: Any, user_id: uuid.UUID, now: datetime
    ) -> SpaceInputDefault:
        statement = (
            insert(SpaceInputDefault)
            .values(
                space_id=space_id, name=name, value=value, updated_by=user_id, created_at=now, updated_at=now
            )
            .on_conflict_do_update(
                index_elements=[SpaceInputDefault.space_id, SpaceInputDefault.name],
                set_={"value": value, "updated_by": user_id, "updated_at": now},
            )
            .returning(SpaceInputDefault)
            .execution_options(populate_existing=True)
        )
        row: SpaceInputDefault = (await self.session.scalars(statement)).one()
        return row

    async def delete(self, space_id: uuid.UUID, name: str) -> bool:
        rows = await self.session.execute(
            delete(SpaceInputDefault)
            .where(SpaceInputDefault.space_id == space_id, SpaceInputDefault.name == name)
            .returning(SpaceInputDefault.name)
        )
        return bool(rows.all())
