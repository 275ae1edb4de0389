"""Pending calls that nobody will decide any more expire: their time ran out, their run was cancelled,
or the claim that asked lost the run. Each expiry owes `approval.decided` to listening endpoints, and
the Slack message or emails that asked for a decision are told it ended."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from app.definitions import invocation_states
from app.persistence.models import ActionInvocation
from app.persistence.repositories.invocations import InvocationRepository
from app.persistence.types import AsyncSession
from app.services.governance.notices import approval_notices
from app.services.outbound.outbox import record_approval_event

EXPIRED = {"code": "approval_expired", "message": "nobody decided in time"}


def expire_call(approval: ActionInvocation, now: datetime, error: dict[str, Any] | None = None) -> None:
    """`pending → expired` on a loaded call (the caller flushes)."""
    invocation_states.move(approval, invocation_states.EXPIRE)
    approval.denied_reason, approval.completed_at = "expired", now
    approval.error = error or EXPIRED


async def expire_pending_calls(
    session: AsyncSession,
    run_id: uuid.UUID,
    now: datetime,
    *,
    call_key: str | None = None,
    error: dict[str, Any] | None = None,
) -> Sequence[ActionInvocation]:
    """The run's pending calls (only `call_key`'s when given) expire, each announced as decided."""
    pending = await InvocationRepository(session).pending_for_run(run_id, call_key=call_key)
    for approval in pending:
        expire_call(approval, now, error)
        await record_approval_event(session, approval, "approval.decided")
        await approval_notices.expired(session, approval)
    await session.flush()
    return pending
