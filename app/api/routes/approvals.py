"""Invocations (the audit of every capability call), the approvals inbox, and the permission settings."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query

from app.api.body import JsonBodyRoute
from app.api.deps import CodeSpaceDep, PageDep, PageParams, SessionDep, SpaceDep
from app.api.governance_schemas import (
    ActionModes,
    ActionModesOut,
    ApprovalDecision,
    ApprovalDecisionOut,
    ApprovalDenial,
    ApprovalOut,
    ApprovalSettingsBody,
    InvocationOut,
)
from app.api.schemas import PageOut
from app.persistence.models import ActionInvocation
from app.persistence.models import ApprovalDecision as ApprovalDecisionRow
from app.services.automations.store import automation_service
from app.services.governance.approvals import APPROVER_ROLES, approval_service
from app.services.governance.decisions import approval_decisions
from app.services.governance.invocations import invocation_service
from app.services.governance.modes import ApprovalSettings, governance_service

router = APIRouter(prefix="/spaces/{space_id}", tags=["approvals"], route_class=JsonBodyRoute)

InvocationStatus = Literal[
    "pending", "approved", "executing", "executed", "denied", "expired", "failed", "suppressed"
]


@dataclass(frozen=True)
class InvocationFilter:
    """What the invocations list and the approvals inbox narrow to, and which page of it."""

    run_id: uuid.UUID | None
    statuses: list[str] | None
    capability: str | None
    page: PageParams


async def get_invocation_filter(
    page: PageDep,
    run_id: uuid.UUID | None = None,
    status_filter: Annotated[
        list[InvocationStatus] | None, Query(alias="status", description="Repeat to combine.")
    ] = None,
    capability: Annotated[str | None, Query(min_length=1, max_length=100)] = None,
) -> InvocationFilter:
    # FastAPI refuses malformed values (422) before this runs: a run id that is no UUID, an unknown
    # status, an empty or overlong capability; `page` answers 400 for a limit above the maximum.
    return InvocationFilter(
        run_id=run_id,
        statuses=list(status_filter) if status_filter else None,
        capability=capability,
        page=page,
    )


InvocationFilterDep = Annotated[InvocationFilter, Depends(get_invocation_filter)]


def _approval_out(
    invocation: ActionInvocation, automation_name: str, decisions: Sequence[ApprovalDecisionRow] = ()
) -> ApprovalOut:
    out = ApprovalOut.model_validate(invocation)
    out.url = f"/api/v1/spaces/{invocation.space_id}/approvals/{invocation.id}"
    out.run_url = f"/api/v1/spaces/{invocation.space_id}/runs/{invocation.run_id}"
    out.automation_name = automation_name
    out.approvers = list(APPROVER_ROLES)
    out.decisions = [ApprovalDecisionOut.model_validate(decision) for decision in decisions]
    return out


async def _approvals_out(session: SessionDep, invocations: Sequence[ActionInvocation]) -> list[ApprovalOut]:
    names = await approval_service.automation_names(session, invocations)
    decisions = await approval_decisions.by_invocation(session, [i.id for i in invocations])
    return [_approval_out(i, names.get(i.automation_id, ""), decisions.get(i.id, ())) for i in invocations]


async def _one_approval_out(session: SessionDep, invocation: ActionInvocation) -> ApprovalOut:
    return (await _approvals_out(session, [invocation]))[0]


@router.get("/invocations", summary="Every capability call of the space, newest first")
async def list_invocations(
    session: SessionDep, access: SpaceDep, where: InvocationFilterDep
) -> PageOut[InvocationOut]:
    result = await invocation_service.list(
        session,
        access,
        run_id=where.run_id,
        statuses=where.statuses,
        capability=where.capability,
        limit=where.page.limit,
        cursor=where.page.cursor,
    )
    return PageOut(
        items=[InvocationOut.model_validate(i) for i in result.items], next_cursor=result.next_cursor
    )


@router.get("/invocations/{invocation_id}", summary="One capability call")
async def get_invocation(invocation_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> InvocationOut:
    return InvocationOut.model_validate(await invocation_service.get(session, access, invocation_id))


@router.get("/approvals", summary="The inbox: calls that need a human (pending by default), newest first")
async def list_approvals(
    session: SessionDep, access: SpaceDep, where: InvocationFilterDep
) -> PageOut[ApprovalOut]:
    result = await approval_service.inbox(
        session,
        access,
        statuses=where.statuses,
        run_id=where.run_id,
        capability=where.capability,
        limit=where.page.limit,
        cursor=where.page.cursor,
    )
    return PageOut(items=await _approvals_out(session, result.items), next_cursor=result.next_cursor)


@router.get("/approvals/{approval_id}", summary="One approval: the call, its params (redacted), its run")
async def get_approval(approval_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> ApprovalOut:
    return await _one_approval_out(session, await approval_service.get(session, access, approval_id))


@router.post("/approvals/{approval_id}/approve", summary="Approve a pending call (admins and owners)")
async def approve(
    approval_id: uuid.UUID, session: SessionDep, access: SpaceDep, body: ApprovalDecision | None = None
) -> ApprovalOut:
    scope = body.scope if body is not None else "once"
    return await _one_approval_out(
        session, await approval_service.approve(session, access, approval_id, scope)
    )


@router.post("/approvals/{approval_id}/deny", summary="Deny a pending call (admins and owners)")
async def deny(
    approval_id: uuid.UUID, session: SessionDep, access: SpaceDep, body: ApprovalDenial | None = None
) -> ApprovalOut:
    reason = body.reason if body is not None else None
    return await _one_approval_out(session, await approval_service.deny(session, access, approval_id, reason))


@router.put(
    "/automations/{automation_id}/action-modes", summary="Replace an automation's mode overrides (admin)"
)
async def put_automation_modes(
    automation_id: uuid.UUID, body: ActionModes, session: SessionDep, access: CodeSpaceDep
) -> ActionModesOut:
    automation = await governance_service.set_automation_modes(
        session, access, automation_id, dict(body.modes), body.rules
    )
    return ActionModesOut.of(automation.action_modes)


@router.get("/automations/{automation_id}/action-modes", summary="An automation's mode overrides and rules")
async def get_automation_modes(
    automation_id: uuid.UUID, session: SessionDep, access: CodeSpaceDep
) -> ActionModesOut:
    return ActionModesOut.of((await automation_service.get(session, access, automation_id)).action_modes)


@router.get("/action-modes", summary="The space default modes and rules")
async def get_space_modes(session: SessionDep, access: SpaceDep) -> ActionModesOut:
    return ActionModesOut.of((await governance_service.space(session, access)).action_modes)


@router.put("/action-modes", summary="Replace the space default modes (admin)")
async def put_space_modes(body: ActionModes, session: SessionDep, access: SpaceDep) -> ActionModesOut:
    space = await governance_service.set_space_modes(session, access, dict(body.modes), body.rules)
    return ActionModesOut.of(space.action_modes)


@router.get("/approval-settings", summary="How long approvals wait, and whether self-approval is refused")
async def get_approval_settings(session: SessionDep, access: SpaceDep) -> ApprovalSettingsBody:
    settings = ApprovalSettings.of(await governance_service.space(session, access))
    return ApprovalSettingsBody(
        approval_ttl_seconds=settings.approval_ttl_seconds, forbid_self_approval=settings.forbid_self_approval
    )


@router.put("/approval-settings", summary="Set the approval TTL and self-approval rule (admin)")
async def put_approval_settings(
    body: ApprovalSettingsBody, session: SessionDep, access: SpaceDep
) -> ApprovalSettingsBody:
    settings = ApprovalSettings(body.approval_ttl_seconds, body.forbid_self_approval)
    await governance_service.set_approval_settings(session, access, settings)
    return body
