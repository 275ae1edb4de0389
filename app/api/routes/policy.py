"""Standing approvals of an automation (list, revoke) and the space's policy audit."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Response, status

from app.api.body import JsonBodyRoute
from app.api.deps import CodeSpaceDep, PageDep, SessionDep, SpaceDep
from app.api.policy_schemas import ApprovalGrantOut, PolicyChangeOut
from app.api.schemas import PageOut
from app.services.governance.audit import policy_audit
from app.services.governance.grants import approval_grant_service

router = APIRouter(prefix="/spaces/{space_id}", tags=["approvals"], route_class=JsonBodyRoute)


@router.get(
    "/automations/{automation_id}/approval-grants",
    summary="Standing `always` approvals of an automation, live and lapsed, newest first",
)
async def list_approval_grants(
    automation_id: uuid.UUID, session: SessionDep, access: CodeSpaceDep, page: PageDep
) -> PageOut[ApprovalGrantOut]:
    result = await approval_grant_service.list(
        session, access, automation_id, limit=page.limit, cursor=page.cursor
    )
    return PageOut(items=[ApprovalGrantOut.of(g) for g in result.items], next_cursor=result.next_cursor)


@router.delete(
    "/automations/{automation_id}/approval-grants/{grant_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Revoke a standing approval (admin): the next call it covered asks again",
)
async def revoke_approval_grant(
    automation_id: uuid.UUID, grant_id: uuid.UUID, session: SessionDep, access: SpaceDep
) -> Response:
    await approval_grant_service.revoke(session, access, automation_id, grant_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get(
    "/policy-changes",
    summary="Who changed action modes, approval settings or standing approvals, newest first (admin)",
)
async def list_policy_changes(
    session: SessionDep, access: SpaceDep, page: PageDep, automation_id: uuid.UUID | None = None
) -> PageOut[PolicyChangeOut]:
    result = await policy_audit.list(
        session, access, automation_id=automation_id, limit=page.limit, cursor=page.cursor
    )
    return PageOut(
        items=[PolicyChangeOut.model_validate(c) for c in result.items], next_cursor=result.next_cursor
    )
