"""The invocation audit: the rows the pipeline writes for a run's calls, and the space's listing of them.

Writes happen on the claim's connection: a finished call's row is one statement (`record`: one insert
on the hot path), and so are the fenced moves of an approved call (`start_approved`, `finish_approved`).
A call that needs a human is stored `pending` with its expiry, a notification and the
`approval.requested` webhook deliveries, all in one transaction; the approvals service decides it.
Every status written or moved is checked against the invocation table (`app.definitions.invocation_states`).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from app import metrics
from app.definitions import invocation_states
from app.definitions.invocation_states import InvocationStatus
from app.definitions.signals import StepError
from app.engine.claim_ports import ClaimLost
from app.errors import NotFound
from app.persistence.base import utcnow
from app.persistence.models import ActionInvocation, Run, Space
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.invocations import InvocationRepository
from app.persistence.repositories.runs import RunRepository
from app.persistence.types import AsyncSession
from app.registry.ports import InvocationRecord
from app.services.governance.grants import approval_grant_service
from app.services.governance.modes import ApprovalSettings
from app.services.governance.notices import approval_notices
from app.services.identity.access import Permissions, SpaceAccess
from app.services.outbound.outbox import record_approval_event
from app.services.resources.notifications import notification_service

MAX_PENDING_PER_RUN = 10
MAX_PENDING_PER_SPACE = 1000


def _row(run: Run, record: InvocationRecord) -> ActionInvocation:
    now = utcnow()
    return ActionInvocation(
        id=uuid.uuid4(),
        space_id=run.space_id,
        automation_id=run.automation_id,
        run_id=run.id,
        step_id=record.step_id,
        call_key=record.call_key,
        capability=record.capability,
        tier=record.tier,
        risk=record.risk,
        destructive=record.destructive,
        chosen_by=record.chosen_by,
        mode=record.mode,
        mode_source=record.mode_source,
        mode_rule=record.mode_rule,
        required_approvals=record.required_approvals,
        params=record.params,
        params_hash=record.params_hash,
        target=record.target,
        status=invocation_states.created(record.status),
        result=record.result,
        error=record.error,
        denied_reason=record.denied_reason,
        duration_ms=record.duration_ms,
        created_at=now,
        completed_at=None if record.status == InvocationStatus.pending else now,
    )


class InvocationService:
    async def record(self, session: AsyncSession, run: Run, record: InvocationRecord) -> None:
        """A finished call: one insert, no read."""
        await InvocationRepository(session).insert(_row(run, record))

    async def call_times_since(
        self, session: AsyncSession, run_id: uuid.UUID, since: datetime
    ) -> list[datetime]:
        """When the run made the calls its rate limit counts, since `since` (oldest first)."""
        return list(await InvocationRepository(session).call_times_since(run_id, since))

    async def request_approval(
        self, session: AsyncSession, run: Run, record: InvocationRecord
    ) -> str | StepError:
        """A pending call with its expiry, a notification and `approval.requested`: answers its id. Past
        the pending caps the call is refused instead: its denied row is written here, in the same
        transaction, and the answer is the error the caller raises once that committed.

        Only the claim that holds the run may ask (`run.attempt` is the claim's): a claim that lost its
        lease gets `ClaimLost`, and nobody is asked to decide a call no claim will wait for.
        """
        if not await RunRepository(session).holds(run.id, run.attempt):
            raise ClaimLost()
        repository = InvocationRepository(session)
        space = await session.get(Space, run.space_id)
        settings = ApprovalSettings.of(space) if space is not None else ApprovalSettings()
        if (
            await repository.count_pending(run_id=run.id) >= MAX_PENDING_PER_RUN
            or await repository.count_pending(space_id=run.space_id) >= MAX_PENDING_PER_SPACE
        ):
            refused = replace(
                record,
                status=InvocationStatus.denied,
                denied_reason="pending_cap",
                error={"code": "pending_cap_reached", "message": "too many calls wait for approval"},
            )
            await repository.insert(_row(run, refused))
            return StepError(
                "pending_cap_reached",
                f"too many calls already wait for approval (at most {MAX_PENDING_PER_RUN} per run and "
                f"{MAX_PENDING_PER_SPACE} per space)",
                retryable=False,
            )
        # A grant of this step for another target no longer covers it: the step now does something else.
        await approval_grant_service.lapse(session, run, record.lapsed_grants, record.target)
        row = _row(run, record)
        row.expires_at = row.created_at + timedelta(seconds=settings.approval_ttl_seconds)
        await repository.create(row)
        await notification_service.create(
            session,
            space_id=run.space_id,
            run_id=run.id,
            level="warning",
            title=f"Approval needed: {record.capability}",
            body=(
                f"Run {run.id} (step {record.step_id}) waits for a decision on {record.capability}. "
                f"Review it at /api/v1/spaces/{run.space_id}/approvals/{row.id}; "
                f"it expires at {row.expires_at.isoformat()}."
            ),
        )
        await record_approval_event(session, row, "approval.requested")
        if space is not None:
            await approval_notices.requested(session, row, space)
        return str(row.id)

    async def start_approved(self, session: AsyncSession, invocation_id: uuid.UUID, fence: int) -> bool:
        """`approved → executing`, stamped with the claim's attempt: only one claim can take the call."""
        taken = await InvocationRepository(session).transition(
            invocation_id, invocation_states.START, {"fence": fence}
        )
        return taken is not None

    async def finish_approved(
        self, session: AsyncSession, invocation_id: uuid.UUID, fence: int, record: InvocationRecord
    ) -> None:
        """`executing → executed | failed` with what the call returned."""
        edge = (
            invocation_states.COMPLETE
            if record.status == InvocationStatus.executed
            else invocation_states.FAIL
        )
        values = {
            "result": record.result,
            "error": record.error,
            "duration_ms": record.duration_ms,
            "completed_at": utcnow(),
        }
        row = await InvocationRepository(session).transition(invocation_id, edge, values, fence=fence)
        if row is None:
            raise StepError("invocation_interrupted", "another claim holds this call", retryable=False)
        if row.decided_at is not None:
            metrics.approval_executed((values["completed_at"] - row.decided_at).total_seconds())

    async def list(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        *,
        run_id: uuid.UUID | None,
        statuses: Sequence[str] | None,
        capability: str | None,
        limit: int,
        cursor: str | None,
    ) -> Page[ActionInvocation]:
        """The space's invocations, newest first."""
        access.require(Permissions.read)
        statement = InvocationRepository(session).listing_statement(
            access.space_id, run_id=run_id, statuses=statuses, capability=capability
        )
        return await paginate(
            session,
            statement,
            order_by=[ActionInvocation.created_at, ActionInvocation.id],
            limit=limit,
            cursor=cursor,
        )

    async def get(
        self, session: AsyncSession, access: SpaceAccess, invocation_id: uuid.UUID
    ) -> ActionInvocation:
        found = await InvocationRepository(session).get_in_space(access.space_id, invocation_id)
        if found is None:
            raise NotFound("Invocation not found.", code="invocation_not_found")
        return found

    async def for_run(self, session: AsyncSession, run_id: uuid.UUID) -> Sequence[ActionInvocation]:
        return await InvocationRepository(session).for_run(run_id)


invocation_service = InvocationService()
