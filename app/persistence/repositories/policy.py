"""Queries over standing approvals (`approval_grants`) and the policy audit (`policy_changes`)."""

from __future__ import annotations

import uuid
from collections.abc import Collection
from datetime import datetime
from typing import Any

from sqlalchemy import ScalarSelect, Select, delete, func, select, update

from app.persistence.models import ApprovalGrant, PolicyChange
from app.persistence.repositories.base import RepositoryBase

GRANTS = ApprovalGrant.__table__


def live_grants_subquery(automation_id: Any) -> ScalarSelect[Any]:
    """The automation's live grants as one JSON array of `[id, capability, step_id, target]` (NULL for
    none), for a statement that reads them together with something else (the claim)."""
    return (
        select(
            func.jsonb_agg(
                func.jsonb_build_array(
                    ApprovalGrant.id, ApprovalGrant.capability, ApprovalGrant.step_id, ApprovalGrant.target
                )
            )
        )
        .where(ApprovalGrant.automation_id == automation_id, ApprovalGrant.lapsed_at.is_(None))
        .scalar_subquery()
    )


class ApprovalGrantRepository(RepositoryBase[ApprovalGrant]):
    model = ApprovalGrant

    def automation_statement(self, space_id: uuid.UUID, automation_id: uuid.UUID) -> Select[ApprovalGrant]:
        return select(ApprovalGrant).where(
            ApprovalGrant.space_id == space_id, ApprovalGrant.automation_id == automation_id
        )

    async def live(self, automation_id: uuid.UUID) -> list[list[str]]:
        """`[id, capability, step_id, target]` of the automation's live grants."""
        value = (await self.session.execute(select(live_grants_subquery(automation_id)))).scalar_one()
        return list(value or [])

    async def live_for_call(
        self, automation_id: uuid.UUID, capability: str, step_id: str, target: str
    ) -> ApprovalGrant | None:
        """The live grant of exactly this call, locked (a new grant of the same call replaces it)."""
        statement = (
            select(ApprovalGrant)
            .where(
                ApprovalGrant.automation_id == automation_id,
                ApprovalGrant.capability == capability,
                ApprovalGrant.step_id == step_id,
                ApprovalGrant.target == target,
                ApprovalGrant.lapsed_at.is_(None),
            )
            .with_for_update()
        )
        return await self.get_one_or_none(statement)

    async def lapse(
        self,
        automation_id: uuid.UUID,
        grant_ids: Collection[uuid.UUID],
        *,
        now: datetime,
        version: int,
        target: str | None,
    ) -> list[ApprovalGrant]:
        """Mark live grants lapsed (those of another automation or already lapsed are left alone)."""
        statement = (
            update(ApprovalGrant)
            .where(
                ApprovalGrant.automation_id == automation_id,
                ApprovalGrant.id.in_(grant_ids),
                ApprovalGrant.lapsed_at.is_(None),
            )
            .values(lapsed_at=now, lapsed_version=version, lapsed_target=target)
            .returning(ApprovalGrant)
            .execution_options(synchronize_session=False)
        )
        return list((await self.session.scalars(statement)).all())

    async def remove(self, grant: ApprovalGrant) -> None:
        await self.session.execute(delete(ApprovalGrant).where(ApprovalGrant.id == grant.id))


class PolicyChangeRepository(RepositoryBase[PolicyChange]):
    model = PolicyChange

    def space_statement(self, space_id: uuid.UUID, automation_id: uuid.UUID | None) -> Select[PolicyChange]:
        statement = select(PolicyChange).where(PolicyChange.space_id == space_id)
        if automation_id is not None:
            statement = statement.where(PolicyChange.automation_id == automation_id)
        return statement
