"""Queries over secrets: always within one space, except the key rotation sweep."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import (
    Boolean,
    Select,
    Text,
    bindparam,
    cast,
    delete,
    func,
    literal_column,
    or_,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.sql.dml import ReturningInsert

from app.persistence.models import Automation, Secret
from app.persistence.repositories.base import RepositoryBase

# Read each time a space's definition is checked (`app.services.automations.vocabulary`): built once,
# its values bound at execution, since building a statement costs SQLAlchemy more CPU than running it.
_HOSTS_BY_NAME = select(Secret.name, Secret.hosts).where(Secret.space_id == bindparam("space_id"))


class SecretRepository(RepositoryBase[Secret]):
    model = Secret

    def space_statement(self, space_id: uuid.UUID) -> Select[Secret]:
        """Secrets of one space: the one place a secret query is scoped."""
        return select(Secret).where(Secret.space_id == space_id)

    async def get_by_name(self, space_id: uuid.UUID, name: str) -> Secret | None:
        return await self.get_one_or_none(self.space_statement(space_id).where(Secret.name == name))

    async def named(self, space_id: uuid.UUID, names: Collection[str]) -> Sequence[Secret]:
        return await self.get_all(self.space_statement(space_id).where(Secret.name.in_(names)))

    async def all_names(self, space_id: uuid.UUID) -> set[str]:
        """The names of every secret of the space (never a value)."""
        return set((await self.session.scalars(select(Secret.name).where(Secret.space_id == space_id))).all())

    async def existing_names(self, space_id: uuid.UUID, names: Collection[str]) -> set[str]:
        statement = select(Secret.name).where(Secret.space_id == space_id, Secret.name.in_(names))
        return set((await self.session.scalars(statement)).all())

    async def upsert(
        self,
        *,
        space_id: uuid.UUID,
        name: str,
        description: str | None,
        ciphertext: bytes,
        key_id: str,
        user_id: uuid.UUID,
        hosts: list[str] | None,
    ) -> tuple[Secret, bool]:
        """Create or replace in one statement (two concurrent first writes cannot both insert).

        `hosts` None keeps a replaced secret's hosts (a new one has none). Answers the row and whether
        it was created.
        """
        changes: dict[str, Any] = {
            "description": description,
            "ciphertext": ciphertext,
            "key_id": key_id,
            "updated_by": user_id,
            "updated_at": func.now(),
        }
        if hosts is not None:
            changes["hosts"] = hosts
        statement: ReturningInsert[Secret, bool] = (
            insert(Secret)
            .values(
                space_id=space_id,
                name=name,
                description=description,
                ciphertext=ciphertext,
                key_id=key_id,
                created_by=user_id,
                updated_by=user_id,
                hosts=hosts or [],
            )
            .on_conflict_do_update(index_elements=[Secret.space_id, Secret.name], set_=changes)
            # xmax is 0 on a freshly inserted row version, and set when the conflict branch updated it.
            .returning(Secret, literal_column("xmax = 0", Boolean))
            .execution_options(populate_existing=True)
        )
        row = (await self.session.execute(statement)).one()
        return row[0], bool(row[1])

    async def set_hosts(
        self, space_id: uuid.UUID, name: str, hosts: list[str], user_id: uuid.UUID
    ) -> Secret | None:
        """Bind a secret to `hosts` (the value is untouched); None when the space has no such secret."""
        statement = (
            update(Secret)
            .where(Secret.space_id == space_id, Secret.name == name)
            .values(hosts=hosts, updated_by=user_id, updated_at=func.now())
            .returning(Secret)
            .execution_options(populate_existing=True)
        )
        return (await self.session.scalars(statement)).one_or_none()

    async def hosts_by_name(self, space_id: uuid.UUID) -> dict[str, list[str]]:
        """Every secret's name with its hosts (never a value)."""
        rows = (await self.session.execute(_HOSTS_BY_NAME, {"space_id": space_id})).all()
        return {row[0]: list(row[1]) for row in rows}

    async def definitions_naming(self, space_id: uuid.UUID, names: Collection[str], limit: int) -> list[Any]:
        """Definitions of the space's automations (oldest first, archived ones left out) whose text names
        one of `names` as a secret reference; the caller finds where in each."""
        if not names:
            return []
        text = cast(Automation.definition, Text)
        statement = (
            select(Automation.definition)
            .where(
                Automation.space_id == space_id,
                Automation.archived_at.is_(None),
                or_(*(text.contains(f'"$secret": "{name}"', autoescape=True) for name in names)),
            )
            .order_by(Automation.created_at)
            .limit(limit)
        )
        return list((await self.session.scalars(statement)).all())

    async def delete_by_name(self, space_id: uuid.UUID, name: str) -> bool:
        statement = delete(Secret).where(Secret.space_id == space_id, Secret.name == name)
        result = await self.session.execute(statement.returning(Secret.id))
        return result.first() is not None

    async def sealed_under(self, key_ids: Collection[str], limit: int) -> Sequence[Secret]:
        """Rows sealed under one of `key_ids`, locked until the transaction ends."""
        statement = (
            select(Secret)
            .where(Secret.key_id.in_(key_ids))
            .order_by(Secret.id)
            .limit(limit)
            .with_for_update()
        )
        return await self.get_all(statement)

    async def reseal(self, secret_id: uuid.UUID, ciphertext: bytes, key_id: str) -> None:
        """Store a new ciphertext of the same value; `updated_at` and `updated_by` keep their meaning."""
        statement = (
            update(Secret)
            .where(Secret.id == secret_id)
            .values(ciphertext=ciphertext, key_id=key_id, updated_at=Secret.updated_at)
        )
        await self.session.execute(statement)

    async def count_by_key(self) -> dict[str, int]:
        statement = select(Secret.key_id, func.count()).group_by(Secret.key_id)
        return {row[0]: row[1] for row in (await self.session.execute(statement)).all()}
