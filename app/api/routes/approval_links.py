"""Email approvals: the space's switch, and the link's confirm page API (the link's token is the credential).

The page (`/approval-email#<token>` in the web UI) reads the call with `POST …/approval-links/view` and
decides with `POST …/approval-links/decide`: both carry the token in the body, never in a URL.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter
from pydantic import Field, StrictBool

from app.api.body import JsonBodyRoute
from app.api.deps import SessionDep, SettingsDep, SpaceDep
from app.api.schemas import Body, Out
from app.services.governance.email_decisions import email_decisions
from app.services.governance.email_links import email_links, enabled
from app.services.governance.modes import governance_service

router = APIRouter(tags=["approvals"], route_class=JsonBodyRoute)


class EmailApprovalsBody(Body):
    enabled: StrictBool = Field(
        description="Email each admin and owner a single-use link for every pending call."
    )


class EmailApprovalsOut(Out):
    enabled: bool
    mail_configured: bool = Field(description="Whether this deployment has an SMTP relay to send them.")


class LinkToken(Body):
    token: str = Field(min_length=1, max_length=200, description="The token of the link's URL fragment.")


class LinkDecision(LinkToken):
    decision: Literal["approve", "deny"]
    reason: str | None = Field(default=None, max_length=1000)


class LinkCallOut(Out):
    approval_id: str
    capability: str
    step_id: str
    run_id: str
    params: Any = Field(description="Redacted; secrets appear as references.")
    required_approvals: int
    approvals_so_far: int
    expires_at: datetime | None
    approver_email: str = Field(description="Whom the link is for: the decision is recorded as theirs.")


class LinkDecidedOut(Out):
    approval_id: str
    status: str


def _mail_configured(settings: Any) -> bool:
    return bool(settings.smtp_url and settings.smtp_url.get_secret_value() and settings.smtp_from)


@router.get("/spaces/{space_id}/email-approvals", summary="Whether approvers get emailed links")
async def get_email_approvals(
    session: SessionDep, access: SpaceDep, settings: SettingsDep
) -> EmailApprovalsOut:
    space = await governance_service.space(session, access)
    return EmailApprovalsOut(enabled=enabled(space), mail_configured=_mail_configured(settings))


@router.put("/spaces/{space_id}/email-approvals", summary="Email approvers single-use links (admin)")
async def put_email_approvals(
    body: EmailApprovalsBody, session: SessionDep, access: SpaceDep, settings: SettingsDep
) -> EmailApprovalsOut:
    configured = _mail_configured(settings)
    space = await email_links.set_enabled(session, access, body.enabled, mail_configured=configured)
    return EmailApprovalsOut(enabled=enabled(space), mail_configured=configured)


@router.post("/approval-links/view", summary="The call an email link decides (changes nothing)")
async def view_link(body: LinkToken, session: SessionDep) -> LinkCallOut:
    found = await email_decisions.view(session, body.token)
    approval = found.approval
    return LinkCallOut(
        approval_id=str(approval.id),
        capability=approval.capability,
        step_id=approval.step_id,
        run_id=str(approval.run_id),
        params=approval.params,
        required_approvals=approval.required_approvals,
        approvals_so_far=found.approvals_so_far,
        expires_at=approval.expires_at,
        approver_email=found.approver_email,
    )


@router.post("/approval-links/decide", summary="Approve or deny with an email link (once)")
async def decide_with_link(body: LinkDecision, session: SessionDep) -> LinkDecidedOut:
    approval = await email_decisions.decide(session, body.token, body.decision, body.reason)
    return LinkDecidedOut(approval_id=str(approval.id), status=approval.status)
