"""What drafting may know about a space: names only (secrets, steps used so far), never values."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession

from app.persistence.models import Automation


class AuthoringFactsRepository:
    """Read-only queries for the authoring context, each scoped to one space."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def secret_names(self, space_id: uuid.UUID) -> list[str]:
        """Names of the space's stored secrets, sorted; [] while this installation has no vault table."""
        present = (await self.session.execute(text("SELECT to_regclass('public.secrets')"))).scalar_one()
        if present is None:
            return []
        rows = await self.session.execute(
            text("SELECT name FROM secrets WHERE space_id = :space ORDER BY name"), {"space": space_id}
        )
        return [str(row[0]) for row in rows]

    async def definitions(self, space_id: uuid.UUID, limit: int) -> list[dict[str, Any]]:
        """The current definitions of the space's automations (archived ones too: they were used)."""
        statement = (
            select(Automation.definition)
            .where(Automation.space_id == space_id)
            .order_by(Automation.created_at.desc())
            .limit(limit)
        )
        return list((await self.session.scalars(statement)).all())
