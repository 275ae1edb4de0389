"""Queries over artifacts and registered databases: always within one space, except the retention sweep."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from datetime import datetime

from sqlalchemy import BindParameter, Select, bindparam, delete, func, select

from app.persistence.models import Artifact, SpaceDatabase
from app.persistence.repositories.base import RepositoryBase


class ArtifactRepository(RepositoryBase[Artifact]):
    model = Artifact

    def space_statement(self, space_id: uuid.UUID) -> Select[Artifact]:
        """Artifacts of one space: the one place an artifact query is scoped."""
        return select(Artifact).where(Artifact.space_id == space_id)

    async def get_in_space(self, space_id: uuid.UUID, artifact_id: uuid.UUID) -> Artifact | None:
        return await self.get_one_or_none(self.space_statement(space_id).where(Artifact.id == artifact_id))

    async def for_run(self, space_id: uuid.UUID, run_id: uuid.UUID) -> Sequence[Artifact]:
        statement = self.space_statement(space_id).where(Artifact.run_id == run_id)
        return await self.get_all(statement.order_by(Artifact.created_at, Artifact.id))

    async def lock_space(self, space_id: uuid.UUID) -> None:
        """Serialise artifact writes of one space until the transaction ends (quota accounting)."""
        key = int.from_bytes(space_id.bytes[:8], "big", signed=True)
        await self.session.execute(select(func.pg_advisory_xact_lock(key)))

    async def bytes_used(self, space_id: uuid.UUID) -> int:
        """The space's stored size (each artifact counted, even when two share their bytes)."""
        statement = select(func.coalesce(func.sum(Artifact.size), 0)).where(Artifact.space_id == space_id)
        return int((await self.session.execute(statement)).scalar_one())

    async def delete_expired(self, now: datetime, limit: int) -> list[str]:
        """Delete up to `limit` expired rows (oldest first, skipping locked ones); answer their hashes."""
        expired = (
            select(Artifact.id)
            .where(Artifact.expires_at.is_not(None), Artifact.expires_at <= now)
            .order_by(Artifact.expires_at)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        result = await self.session.execute(
            delete(Artifact).where(Artifact.id.in_(expired.scalar_subquery())).returning(Artifact.sha256)
        )
        return list(result.scalars().all())

    async def referenced(self, hashes: Collection[str]) -> set[str]:
        """Which of these blobs some artifact row still names."""
        if not hashes:
            return set()
        statement = select(Artifact.sha256).where(Artifact.sha256.in_(hashes)).distinct()
        return set((await self.session.scalars(statement)).all())


def _databases_of(space_id: uuid.UUID | BindParameter[uuid.UUID]) -> Select[SpaceDatabase]:
    """The one place a database query is scoped to its space."""
    return select(SpaceDatabase).where(SpaceDatabase.space_id == space_id)


# Read each time a space's definition is checked (`app.services.automations.vocabulary`): built once,
# its values bound at execution, since building a statement costs SQLAlchemy more CPU than running it.
_DATABASES_IN_SPACE = _databases_of(bindparam("space_id")).order_by(SpaceDatabase.tool_prefix)


class DatabaseRepository(RepositoryBase[SpaceDatabase]):
    model = SpaceDatabase

    def space_statement(self, space_id: uuid.UUID) -> Select[SpaceDatabase]:
        return _databases_of(space_id)

    async def get_in_space(self, space_id: uuid.UUID, database_id: uuid.UUID) -> SpaceDatabase | None:
        return await self.get_one_or_none(
            self.space_statement(space_id).where(SpaceDatabase.id == database_id)
        )

    async def by_prefix(self, space_id: uuid.UUID, prefix: str) -> SpaceDatabase | None:
        return await self.get_one_or_none(
            self.space_statement(space_id).where(SpaceDatabase.tool_prefix == prefix)
        )

    async def taken(
        self, space_id: uuid.UUID, name: str, prefix: str, *, excluding: uuid.UUID | None = None
    ) -> SpaceDatabase | None:
        statement = self.space_statement(space_id).where(
            (SpaceDatabase.name == name) | (SpaceDatabase.tool_prefix == prefix)
        )
        if excluding is not None:
            statement = statement.where(SpaceDatabase.id != excluding)
        return (await self.session.scalars(statement.limit(1))).first()

    async def all_in_space(self, space_id: uuid.UUID) -> Sequence[SpaceDatabase]:
        return list(await self.session.scalars(_DATABASES_IN_SPACE, {"space_id": space_id}))

    async def remove(self, row: SpaceDatabase) -> None:
        await self.session.execute(delete(SpaceDatabase).where(SpaceDatabase.id == row.id))
