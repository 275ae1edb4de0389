"""Standing approvals: `approve … scope: always` as a grant bound to the approved call, with its origin.

A grant covers later calls of the same automation's step, capability and target (see
`app.engine.standing_grants`), whoever edits the definition in between; a call of that step with
another target lapses it. Grants are listed with who granted them, when, from which approval and for
which definition version, and revoked with `DELETE`; granting and revoking are recorded in the policy
audit.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from app.errors import NotFound
from app.persistence.base import utcnow
from app.persistence.models import ActionInvocation, ApprovalGrant, Automation, Run
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.policy import ApprovalGrantRepository
from app.persistence.types import AsyncSession
from app.services.automations.store import automation_service
from app.services.governance.audit import policy_audit
from app.services.identity.access import Permissions, SpaceAccess


def grant_snapshot(grant: ApprovalGrant) -> dict[str, Any]:
    """What the policy audit keeps of a grant."""
    return {
        "id": str(grant.id),
        "capability": grant.capability,
        "step_id": grant.step_id,
        "target": grant.target,
        "definition_version": grant.definition_version,
        "granted_by": str(grant.granted_by) if grant.granted_by else None,
        "invocation_id": str(grant.invocation_id) if grant.invocation_id else None,
    }


class ApprovalGrantService:
    async def grant(
        self, session: AsyncSession, approval: ActionInvocation, run: Run, user_id: uuid.UUID
    ) -> ApprovalGrant:
        """The grant of an approved call (replacing a live one of the same call), recorded in the audit."""
        repository = ApprovalGrantRepository(session)
        # Two approvals of the same call decided at once: the automation's row lock orders them, so the
        # second replaces the first's grant instead of colliding with it.
        await session.get(Automation, approval.automation_id, with_for_update=True)
        target = approval.target or approval.capability
        existing = await repository.live_for_call(
            approval.automation_id, approval.capability, approval.step_id, target
        )
        before = grant_snapshot(existing) if existing is not None else None
        if existing is not None:
            await repository.remove(existing)
            await session.flush()
        grant = await repository.create(
            ApprovalGrant(
                id=uuid.uuid4(),
                space_id=approval.space_id,
                automation_id=approval.automation_id,
                capability=approval.capability,
                step_id=approval.step_id,
                target=target,
                definition_version=run.automation_version,
                granted_by=user_id,
                granted_at=utcnow(),
                invocation_id=approval.id,
            )
        )
        await policy_audit.record(
            session,
            space_id=approval.space_id,
            automation_id=approval.automation_id,
            actor_id=user_id,
            kind="approval_grant_added",
            before=before,
            after=grant_snapshot(grant),
        )
        return grant

    async def lapse(
        self, session: AsyncSession, run: Run, grant_ids: Sequence[str], target: str | None
    ) -> None:
        """Grants of a step whose call now has another target (named by the pipeline) lapse."""
        ids = [uuid.UUID(grant_id) for grant_id in grant_ids]
        if ids:
            await ApprovalGrantRepository(session).lapse(
                run.automation_id, ids, now=utcnow(), version=run.automation_version, target=target
            )

    async def list(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        automation_id: uuid.UUID,
        *,
        limit: int,
        cursor: str | None,
    ) -> Page[ApprovalGrant]:
        """The automation's grants, live and lapsed, newest first."""
        access.require(Permissions.read)
        automation = await automation_service.get(session, access, automation_id)
        return await paginate(
            session,
            ApprovalGrantRepository(session).automation_statement(access.space_id, automation.id),
            order_by=[ApprovalGrant.granted_at, ApprovalGrant.id],
            limit=limit,
            cursor=cursor,
        )

    async def revoke(
        self, session: AsyncSession, access: SpaceAccess, automation_id: uuid.UUID, grant_id: uuid.UUID
    ) -> None:
        """Remove a grant (admins and owners): the next call it covered asks again. Recorded."""
        access.require(Permissions.manage_space)
        repository = ApprovalGrantRepository(session)
        grant = await repository.get_one_or_none(
            repository.automation_statement(access.space_id, automation_id)
            .where(ApprovalGrant.id == grant_id)
            .with_for_update()
        )
        if grant is None:
            raise NotFound("Approval grant not found.", code="approval_grant_not_found")
        await repository.remove(grant)
        await policy_audit.record(
            session,
            space_id=access.space_id,
            automation_id=automation_id,
            actor_id=access.user_id,
            kind="approval_grant_revoked",
            before=grant_snapshot(grant),
            after=None,
        )


approval_grant_service = ApprovalGrantService()
