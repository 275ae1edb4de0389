"""Queries over automation key/value state: always within one automation; expired entries are invisible."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Select, delete, func, or_, select
from sqlalchemy.dialects.postgresql import insert

from app.persistence.models import AutomationKv
from app.persistence.repositories.base import RepositoryBase

# Sets of new keys of one automation take turns under this lock (with the automation's id), so two
# concurrent writers cannot both take the last slot of the quota.
_KV_LOCK_NAMESPACE = 0x6B76


class KvRepository(RepositoryBase[AutomationKv]):
    model = AutomationKv

    def live_statement(self, automation_id: uuid.UUID, now: datetime) -> Select[AutomationKv]:
        """The automation's entries that have not expired: the one place a kv query is scoped."""
        return select(AutomationKv).where(
            AutomationKv.automation_id == automation_id,
            or_(AutomationKv.expires_at.is_(None), AutomationKv.expires_at > now),
        )

    def prefixed(self, automation_id: uuid.UUID, prefix: str, now: datetime) -> Select[AutomationKv]:
        statement = self.live_statement(automation_id, now)
        if prefix:
            statement = statement.where(AutomationKv.key.startswith(prefix, autoescape=True))
        return statement

    async def get_live(self, automation_id: uuid.UUID, key: str, now: datetime) -> AutomationKv | None:
        return await self.get_one_or_none(
            self.live_statement(automation_id, now).where(AutomationKv.key == key)
        )

    async def lock(self, automation_id: uuid.UUID) -> None:
        """Until the transaction ends, new keys of this automation are counted and added by one writer."""
        await self.session.execute(
            select(func.pg_advisory_xact_lock(_KV_LOCK_NAMESPACE, func.hashtext(str(automation_id))))
        )

    async def count_live(self, automation_id: uuid.UUID, now: datetime) -> int:
        statement = select(func.count()).select_from(self.live_statement(automation_id, now).subquery())
        return int(await self.session.scalar(statement) or 0)

    async def purge_expired(self, automation_id: uuid.UUID, now: datetime) -> None:
        await self.session.execute(
            delete(AutomationKv).where(
                AutomationKv.automation_id == automation_id, AutomationKv.expires_at <= now
            )
        )

    async def upsert(
        self,
        *,
        space_id: uuid.UUID,
        automation_id: uuid.UUID,
        key: str,
        value: Any,
        expires_at: datetime | None,
        now: datetime,
    ) -> AutomationKv:
        statement = (
            insert(AutomationKv)
            .values(
                id=uuid.uuid4(),
                space_id=space_id,
                automation_id=automation_id,
                key=key,
                value=value,
                expires_at=expires_at,
                created_at=now,
                updated_at=now,
            )
            .on_conflict_do_update(
                index_elements=[AutomationKv.automation_id, AutomationKv.key],
                set_={"value": value, "expires_at": expires_at, "updated_at": now},
            )
            .returning(AutomationKv)
            .execution_options(populate_existing=True)
        )
        row: AutomationKv = (await self.session.scalars(statement)).one()
        return row

    async def delete_live(self, automation_id: uuid.UUID, key: str, now: datetime) -> bool:
        """Delete the key; True when a live entry was there (an expired one is deleted too, quietly)."""
        rows = await self.session.execute(
            delete(AutomationKv)
            .where(AutomationKv.automation_id == automation_id, AutomationKv.key == key)
            .returning(AutomationKv.expires_at)
        )
        expiries = [expires for (expires,) in rows]
        return any(expires is None or expires > now for expires in expiries)

    async def delete_prefixed(self, automation_id: uuid.UUID, prefix: str) -> int:
        statement = delete(AutomationKv).where(AutomationKv.automation_id == automation_id)
        if prefix:
            statement = statement.where(AutomationKv.key.startswith(prefix, autoescape=True))
        rows = await self.session.execute(statement.returning(AutomationKv.id))
        return len(rows.all())
