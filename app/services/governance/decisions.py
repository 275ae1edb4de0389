"""Each approver's decision on a pending call: recorded once per member, counted toward the call's
required approvers, and listed with the approval."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Literal

from app import metrics
from app.errors import Conflict
from app.persistence.base import utcnow
from app.persistence.models import ActionInvocation, ApprovalDecision
from app.persistence.repositories.approvals import ApprovalDecisionRepository
from app.persistence.types import AsyncSession

DecidedVia = Literal["api", "slack", "email"]


class ApprovalDecisions:
    async def record(
        self,
        session: AsyncSession,
        approval: ActionInvocation,
        user_id: uuid.UUID,
        decision: Literal["approve", "deny"],
        via: DecidedVia,
        note: str | None,
    ) -> int:
        """One member's decision (the approval row is locked by the caller); a second one is a 409.
        Answers how many distinct members have approved the call, this decision included."""
        row = ApprovalDecision(
            id=uuid.uuid4(),
            invocation_id=approval.id,
            space_id=approval.space_id,
            user_id=user_id,
            decision=decision,
            via=via,
            note=note,
            created_at=utcnow(),
        )
        added, before = await ApprovalDecisionRepository(session).add_once(row)
        if not added:
            raise Conflict(
                "You already decided on this call; it waits for other approvers.", code="already_decided"
            )
        return before + 1 if decision == "approve" else before

    async def approvals(self, session: AsyncSession, approval: ActionInvocation) -> int:
        """Distinct members who approved the call so far."""
        return await ApprovalDecisionRepository(session).approvals(approval.id)

    async def by_invocation(
        self, session: AsyncSession, invocation_ids: Sequence[uuid.UUID]
    ) -> dict[uuid.UUID, list[ApprovalDecision]]:
        """The decisions on each of these calls, oldest first."""
        found: dict[uuid.UUID, list[ApprovalDecision]] = {}
        for row in await ApprovalDecisionRepository(session).for_invocations(invocation_ids):
            found.setdefault(row.invocation_id, []).append(row)
        return found


def observe_decided(approval: ActionInvocation) -> None:
    """Requested → decided, into the decision-latency histogram."""
    if approval.decided_at is not None and approval.created_at is not None:
        outcome = "approved" if approval.status == "approved" else "denied"
        metrics.approval_decided(outcome, (approval.decided_at - approval.created_at).total_seconds())


approval_decisions = ApprovalDecisions()
