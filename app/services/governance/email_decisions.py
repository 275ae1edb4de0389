"""Deciding through an email link: show the call, then record the link's approver's decision once.

A link that is unknown or malformed is a 404, one used or past its call's expiry a 410, one for a call
that no longer waits a 409; the decision goes through the approvals service like the API's, with the
approver's current role and the self-approval rule, and any refusal leaves the link unused.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from app.errors import Conflict, Forbidden, NotFound
from app.persistence.base import utcnow
from app.persistence.models import ActionInvocation, ApprovalLink, User
from app.persistence.repositories.approvals import ApprovalLinkRepository
from app.persistence.repositories.tenancy import MembershipRepository
from app.persistence.types import AsyncSession
from app.security.tokens import hash_token, is_well_formed
from app.services.governance.approvals import approval_service
from app.services.governance.decisions import approval_decisions
from app.services.governance.email_links import LINK_PREFIX
from app.services.identity.access import Caller, SpaceAccess

# A decision through an email link presents no API token.
NO_TOKEN = uuid.UUID(int=0)


@dataclass(frozen=True)
class LinkView:
    """What the confirm page shows: the call and who the link is for."""

    approval: ActionInvocation
    approver_email: str
    approvals_so_far: int


class Gone(Conflict):
    """A link that existed and can no longer be used (HTTP 410)."""

    status_code = 410


class EmailDecisions:
    async def view(self, session: AsyncSession, token: str) -> LinkView:
        """The call a link decides (no change): 404 for an unknown link, 410 for a used or expired one."""
        _, approval, user = await self._usable(session, token, for_update=False)
        return LinkView(approval, user.email, await approval_decisions.approvals(session, approval))

    async def decide(
        self, session: AsyncSession, token: str, decision: str, reason: str | None
    ) -> ActionInvocation:
        """Record the link's approver's decision and use the link up; on any refusal nothing changes."""
        link, approval, user = await self._usable(session, token, for_update=True)
        membership = await MembershipRepository(session).get(approval.space_id, user.id)
        if membership is None:
            raise Forbidden("You are no longer a member of this space.", code="approval_link_not_member")
        access = SpaceAccess(Caller(user.id, user.email, NO_TOKEN), approval.space_id, membership.role)
        if decision == "approve":
            decided = await approval_service.approve(session, access, approval.id, "once", via="email")
        else:
            decided = await approval_service.deny(session, access, approval.id, reason, via="email")
        link.used_at = utcnow()
        await session.flush()
        return decided

    async def _usable(
        self, session: AsyncSession, token: str, *, for_update: bool
    ) -> tuple[ApprovalLink, ActionInvocation, User]:
        found = (
            await ApprovalLinkRepository(session).by_token_hash(hash_token(token), for_update=for_update)
            if is_well_formed(token, LINK_PREFIX)
            else None
        )
        if found is None:
            raise NotFound("This approval link is not valid.", code="approval_link_invalid")
        if found.used_at is not None:
            raise Gone(
                "This approval link was used already; each link decides once.", code="approval_link_used"
            )
        if found.expires_at <= utcnow():
            raise Gone("This approval link has expired with its call.", code="approval_link_expired")
        approval = await session.get(ActionInvocation, found.invocation_id)
        user = await session.get(User, found.user_id)
        if approval is None or user is None:
            raise NotFound("This approval link is not valid.", code="approval_link_invalid")
        if approval.status != "pending":
            raise Conflict(
                f"This call is not waiting for a decision ({approval.status}).", code="approval_not_pending"
            )
        return found, approval, user


email_decisions = EmailDecisions()
