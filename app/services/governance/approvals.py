"""Approvals: the inbox of pending calls, the decisions on them, expiry, and what a cancel does to them.

A decision is one transaction: the invocation row moves (`pending → approved | denied`), the run moves
back to `pending` (the `resume` edge) with a wake-up sent after commit, and `approval.decided` is owed
to the space's webhook endpoints. The approved call itself runs on the worker that claims the run next,
exactly once (`approved → executing → executed`, fenced by the claim's attempt). Expiry fails the run
(`approval_expired`); a cancel expires the run's pending calls.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from app.definitions import invocation_states, run_states
from app.definitions.run_states import RunStatus
from app.errors import Conflict, Forbidden, NotFound, ValidationFailed
from app.persistence.base import utcnow
from app.persistence.models import ActionInvocation, Role, Run, Space
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.automations import AutomationRepository, AutomationVersionRepository
from app.persistence.repositories.invocations import InvocationRepository
from app.persistence.repositories.runs import RunRepository
from app.persistence.types import AsyncSession
from app.services.governance.call_expiry import expire_call, expire_pending_calls
from app.services.governance.decisions import DecidedVia, approval_decisions, observe_decided
from app.services.governance.grants import approval_grant_service
from app.services.governance.modes import ApprovalSettings, governance_service
from app.services.governance.notices import approval_notices
from app.services.identity.access import Permissions, SpaceAccess, outranks_or_equals
from app.services.outbound.outbox import record_approval_event
from app.services.runs.limits import DispatchLimits
from app.services.runs.moves import Move
from app.services.runs.transition import transition

Scope = Literal["once", "always", "always_space"]

APPROVER_ROLES: tuple[Role, ...] = tuple(
    role for role in Role if outranks_or_equals(role, Permissions.manage_space.minimum)
)
"""The roles asked to decide a pending call (highest first)."""


@dataclass(frozen=True)
class SweepReport:
    expired: int
    pending: int
    """Calls still waiting for a decision after the sweep, across every space (for the metrics gauge)."""


class ApprovalService:
    async def inbox(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        *,
        statuses: Sequence[str] | None,
        run_id: uuid.UUID | None,
        capability: str | None,
        limit: int,
        cursor: str | None,
    ) -> Page[ActionInvocation]:
        """Calls that asked for a human (pending by default), newest first."""
        access.require(Permissions.read)
        repository = InvocationRepository(session)
        statement = repository.listing_statement(
            access.space_id, run_id=run_id, statuses=statuses or ["pending"], capability=capability
        ).where(ActionInvocation.mode == "require_approval")
        return await paginate(
            session,
            statement,
            order_by=[ActionInvocation.created_at, ActionInvocation.id],
            limit=limit,
            cursor=cursor,
        )

    async def get(
        self, session: AsyncSession, access: SpaceAccess, approval_id: uuid.UUID
    ) -> ActionInvocation:
        access.require(Permissions.read)
        return await self._approval(session, access, approval_id, for_update=False)

    async def automation_names(
        self, session: AsyncSession, approvals: Sequence[ActionInvocation]
    ) -> dict[uuid.UUID, str]:
        """The name of each approval's automation, in one query for a whole page of the inbox."""
        return await AutomationRepository(session).names({a.automation_id for a in approvals})

    async def approve(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        approval_id: uuid.UUID,
        scope: Scope,
        *,
        via: DecidedVia = "api",
    ) -> ActionInvocation:
        """Approve a pending call once, or for later calls too: `always`, this step's calls to the same
        target (a standing grant); `always_space`, the capability anywhere in the space (a space mode).

        A call a rule gave several approvers stays pending until that many distinct members approved
        it (each approval is recorded with who gave it and through which channel)."""
        access.require(Permissions.manage_space)
        approval = await self._approval(session, access, approval_id, for_update=True)
        run = await self._decidable(session, access, approval)
        if scope != "once" and approval.destructive:
            raise ValidationFailed(
                f"{approval.capability} may destroy data: it is approved one call at a time (scope once).",
                code="scope_not_allowed",
            )
        if scope != "once" and approval.required_approvals > 1:
            raise ValidationFailed(
                f"{approval.capability} needs {approval.required_approvals} approvers here: it is approved "
                "one call at a time (scope once).",
                code="scope_not_allowed",
            )
        approved_by = await approval_decisions.record(session, approval, access.user_id, "approve", via, None)
        if approved_by < approval.required_approvals:
            await approval_notices.decision_recorded(session, approval)
            return approval  # still pending: more distinct approvers are needed
        now = utcnow()
        invocation_states.move(approval, invocation_states.APPROVE)
        approval.decided_by, approval.decided_at = access.user_id, now
        approval.decision_scope = scope
        if scope == "always":
            # Bound to this call (step, capability, target), not to the capability: an edit that makes
            # the step do something else is not covered.
            await approval_grant_service.grant(session, approval, run, access.user_id)
        elif scope == "always_space":
            await governance_service.allow_in_space(
                session, space_id=approval.space_id, capability=approval.capability, actor_id=access.user_id
            )
        await self._resume(session, run, now)
        await record_approval_event(session, approval, "approval.decided")
        await approval_notices.decision_recorded(session, approval)
        observe_decided(approval)
        return approval

    async def deny(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        approval_id: uuid.UUID,
        reason: str | None,
        *,
        via: DecidedVia = "api",
    ) -> ActionInvocation:
        """Deny a pending call: a step fails with `approval_denied`; an agent is told and goes on.

        One denial ends a call that waits for several approvers."""
        access.require(Permissions.manage_space)
        approval = await self._approval(session, access, approval_id, for_update=True)
        run = await self._decidable(session, access, approval)
        await approval_decisions.record(session, approval, access.user_id, "deny", via, reason)
        now = utcnow()
        invocation_states.move(approval, invocation_states.DENY)
        approval.denied_reason = "human"
        approval.decided_by, approval.decided_at, approval.completed_at = access.user_id, now, now
        approval.decision_note = reason
        approval.error = {"code": "approval_denied", "message": reason or "denied by a human"}
        await self._resume(session, run, now)
        await record_approval_event(session, approval, "approval.decided")
        await approval_notices.decision_recorded(session, approval)
        observe_decided(approval)
        return approval

    async def sweep(self, session: AsyncSession, now: datetime, limits: DispatchLimits) -> SweepReport:
        """Beat: pending calls past `expires_at` expire, and their runs fail with `approval_expired`
        (the `fail` edge, through the run's one door: event, deliveries, promotion)."""
        due = await InvocationRepository(session).due_for_expiry(now)
        for approval in due:
            expire_call(approval, now)
            await record_approval_event(session, approval, "approval.decided")
            await approval_notices.expired(session, approval)
            await session.flush()
            run = await session.get(Run, approval.run_id, with_for_update=True)
            if run is not None and run.status is RunStatus.awaiting_approval:
                error = {
                    "code": "approval_expired",
                    "message": f"nobody decided on {approval.capability} in time",
                }
                expiry = Move(
                    run,
                    run_states.FAIL,
                    now,
                    limits,
                    sources=frozenset({RunStatus.awaiting_approval}),
                    error=error,
                    failed_step_id=approval.step_id,
                    reason="approval expired",
                )
                await transition(session, expiry)
        return SweepReport(expired=len(due), pending=await InvocationRepository(session).count_pending())

    async def withdraw(self, session: AsyncSession, run_id: uuid.UUID, call_key: str) -> int:
        """A call whose claim lost the run before pausing on it: nothing waits for its decision.

        It expires at once (`approval_withdrawn`); if the claim that took the run over still needs the
        call, it asks again under its own attempt.
        """
        error = {
            "code": "approval_withdrawn",
            "message": "the run was taken over by another claim before it paused on this call",
        }
        withdrawn = await expire_pending_calls(session, run_id, utcnow(), call_key=call_key, error=error)
        return len(withdrawn)

    async def _approval(
        self, session: AsyncSession, access: SpaceAccess, approval_id: uuid.UUID, *, for_update: bool
    ) -> ActionInvocation:
        approval = await InvocationRepository(session).get_in_space(
            access.space_id, approval_id, for_update=for_update
        )
        if approval is None or approval.mode != "require_approval":
            raise NotFound("Approval not found.", code="approval_not_found")
        return approval

    async def _decidable(self, session: AsyncSession, access: SpaceAccess, approval: ActionInvocation) -> Run:
        """The approval's run, when the call may still be decided and this caller may decide it."""
        if approval.status != "pending":
            raise Conflict(
                f"This call is not waiting for a decision ({approval.status}).", code="approval_not_pending"
            )
        if approval.expires_at is not None and approval.expires_at <= utcnow():
            raise Conflict("This approval has expired.", code="approval_not_pending")
        run = await RunRepository(session).get_in_space(access.space_id, approval.run_id, for_update=True)
        if run is None or run.status is not RunStatus.awaiting_approval:
            status = run.status if run is not None else "gone"
            raise Conflict(f"The run no longer waits for this call ({status}).", code="run_not_waiting")
        space = await session.get(Space, access.space_id)
        if space is not None and ApprovalSettings.of(space).forbid_self_approval:
            version = await AutomationVersionRepository(session).get_version(
                run.automation_id, run.automation_version
            )
            if access.user_id in {run.created_by, version.created_by if version else None}:
                raise Forbidden(
                    "This space forbids approving a call of a run you started or an automation you saved.",
                    code="self_approval_forbidden",
                )
        return run

    async def _resume(self, session: AsyncSession, run: Run, now: datetime) -> None:
        """Back to pending (the `resume` edge, with its wake-up) once no call of the run waits any more."""
        await session.flush()  # the decided row must count as decided (sessions do not autoflush)
        if await InvocationRepository(session).count_pending(run_id=run.id) > 0:
            return
        await transition(session, Move(run, run_states.RESUME, now, DispatchLimits()))


approval_service = ApprovalService()

__all__ = ["APPROVER_ROLES", "Scope", "SweepReport", "approval_service"]
