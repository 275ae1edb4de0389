"""Email approvals: each member who may decide gets a signed, single-use link bound to them.

The link is `{public_url}/approval-email#<token>`: the token rides in the URL fragment, which browsers
never send to a server, so it reaches no access log or proxy. The page it opens shows the call and
decides only on a POST (mail scanners that fetch links decide nothing). The token is stored hashed,
bound to one approver and one call, and expires with the call; `email_decisions` uses it up once.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from app.errors import ValidationFailed
from app.persistence.base import utcnow
from app.persistence.models import ActionInvocation, ApprovalLink, Run, Space, User
from app.persistence.repositories.approvals import ApprovalLinkRepository, DeciderRepository
from app.persistence.repositories.automations import AutomationVersionRepository
from app.persistence.types import AsyncSession
from app.security.tokens import generate_token, hash_token
from app.services.governance.audit import policy_audit
from app.services.governance.modes import ApprovalSettings
from app.services.identity.access import Permissions, SpaceAccess

SETTINGS_KEY = "email_approvals"
LINK_PREFIX = "aapr_"


def enabled(space: Space) -> bool:
    return bool((space.settings or {}).get(SETTINGS_KEY, False))


def link_url(public_url: str | None, token: str) -> str:
    return f"{(public_url or '').rstrip('/')}/approval-email#{token}"


@dataclass(frozen=True)
class IssuedLink:
    token: str
    url: str


class EmailLinks:
    async def set_enabled(
        self, session: AsyncSession, access: SpaceAccess, on: bool, *, mail_configured: bool
    ) -> Space:
        """Turn email approvals on or off (admins and owners); on needs an SMTP relay."""
        access.require(Permissions.manage_space)
        if on and not mail_configured:
            raise ValidationFailed(
                "This deployment has no SMTP relay (AUTOMATIONS_SMTP_URL and AUTOMATIONS_SMTP_FROM).",
                code="smtp_not_configured",
            )
        space = await session.get(Space, access.space_id, with_for_update=True)
        assert space is not None  # the access was resolved against it
        before = enabled(space)
        space.settings = {**(space.settings or {}), SETTINGS_KEY: on}
        if before != on:
            await policy_audit.record(
                session,
                space_id=space.id,
                actor_id=access.user_id,
                kind="email_approvals",
                before={"enabled": before},
                after={"enabled": on},
            )
        await session.flush()
        return space

    async def approvers(
        self, session: AsyncSession, approval: ActionInvocation, space: Space
    ) -> list[uuid.UUID]:
        """Members an email goes to: admins and owners, without the run's people when the space forbids
        self-approval."""
        excluded: set[uuid.UUID | None] = set()
        if ApprovalSettings.of(space).forbid_self_approval:
            run = await session.get(Run, approval.run_id)
            if run is not None:
                version = await AutomationVersionRepository(session).get_version(
                    run.automation_id, run.automation_version
                )
                excluded = {run.created_by, version.created_by if version else None}
        members = await DeciderRepository(session).of_space(space.id)
        return [member.user_id for member in members if member.user_id not in excluded]

    async def issue(
        self, session: AsyncSession, approval: ActionInvocation, user: User, public_url: str | None
    ) -> IssuedLink:
        """A new link for `user` to decide `approval`, expiring with it (only its hash is stored)."""
        token = generate_token(LINK_PREFIX)
        expires = approval.expires_at or utcnow()
        link = ApprovalLink(
            id=uuid.uuid4(),
            invocation_id=approval.id,
            user_id=user.id,
            token_hash=hash_token(token),
            expires_at=expires,
            created_at=utcnow(),
        )
        await ApprovalLinkRepository(session).create(link)
        return IssuedLink(token, link_url(public_url, token))


def mail_for(approval: ActionInvocation, user: User, link: IssuedLink) -> dict[str, Any]:
    """The email an approver gets: what the call is and the link (its token only in the link)."""
    text = (
        f"A run waits for your decision on {approval.capability} "
        f"(step {approval.step_id}, run {approval.run_id}).\n\n"
        f"Open this link to review the call and approve or deny it:\n{link.url}\n\n"
        "The link is for you only, works once, and expires with the call"
        + (f" at {approval.expires_at:%Y-%m-%d %H:%M} UTC" if approval.expires_at else "")
        + ".\nOpening it decides nothing; only the buttons on the page do.\n"
    )
    return {"to": [user.email], "subject": f"Approval needed: {approval.capability}", "text": text}


email_links = EmailLinks()
