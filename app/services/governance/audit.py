"""The policy audit: every change to who may call what, with who made it, when, and before and after.

Recorded in the transaction of the change itself: space and automation action modes (an
`always_space` approval included), the approval settings (`forbid_self_approval`, the TTL), and the
grant and revocation of standing `always` approvals. Listed newest first to the space's admins.
"""

from __future__ import annotations

import uuid
from typing import Any

from app.persistence.base import utcnow
from app.persistence.models import PolicyChange
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.policy import PolicyChangeRepository
from app.persistence.types import AsyncSession
from app.services.identity.access import Permissions, SpaceAccess


class PolicyAuditService:
    async def record(
        self,
        session: AsyncSession,
        *,
        space_id: uuid.UUID,
        actor_id: uuid.UUID | None,
        kind: str,
        before: Any,
        after: Any,
        automation_id: uuid.UUID | None = None,
    ) -> None:
        """One change; a "change" that leaves the value as it was is not one and leaves no row."""
        if before == after:
            return
        await PolicyChangeRepository(session).create(
            PolicyChange(
                id=uuid.uuid4(),
                space_id=space_id,
                automation_id=automation_id,
                actor_id=actor_id,
                kind=kind,
                before=before,
                after=after,
                created_at=utcnow(),
            )
        )

    async def list(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        *,
        automation_id: uuid.UUID | None,
        limit: int,
        cursor: str | None,
    ) -> Page[PolicyChange]:
        """The space's policy changes, newest first (admins and owners)."""
        access.require(Permissions.manage_space)
        return await paginate(
            session,
            PolicyChangeRepository(session).space_statement(access.space_id, automation_id),
            order_by=[PolicyChange.created_at, PolicyChange.id],
            limit=limit,
            cursor=cursor,
        )


policy_audit = PolicyAuditService()
