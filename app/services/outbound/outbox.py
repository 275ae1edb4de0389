"""The outbox: webhook deliveries written in the transaction of the state change that causes them.

Nothing is sent here. Each delivery row is owed to one endpoint; a `system`-queue task sends it after
the commit (`app.services.outbound.deliveries`), and beat's sweep sends it again if that wake-up was lost.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from app import jobs
from app.persistence.base import utcnow
from app.persistence.models import ActionInvocation, Run, WebhookDelivery, WebhookEndpoint
from app.persistence.repositories.outbound import WebhookDeliveryRepository, WebhookEndpointRepository
from app.persistence.types import AsyncSession

DELIVER_TASK = "system.deliver_webhook"
SYSTEM_QUEUE = "system"
# Seconds after the first attempt: the Standard Webhooks example schedule (immediately, 5 s, 5 min,
# 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h).
RETRY_SCHEDULE = (0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400)


def run_event(run: Run, now: datetime) -> dict[str, Any]:
    """The body of an `automation.run.<status>` delivery: who, what and when; no inputs, outputs or secrets.

    Receivers fetch the details through the API (`data.url`).
    """
    error = run.error or {}
    return {
        "type": f"automation.run.{run.status}",
        "timestamp": now.isoformat(),
        "data": {
            "run_id": str(run.id),
            "space_id": str(run.space_id),
            "automation_id": str(run.automation_id),
            "automation_name": run.definition.get("name"),
            "automation_version": run.automation_version,
            "status": run.status,
            "reason": run.reason,
            "trigger_type": run.trigger_type,
            "started_at": run.started_at.isoformat() if run.started_at else None,
            "finished_at": run.finished_at.isoformat() if run.finished_at else None,
            "failed_step_id": run.failed_step_id,
            "error_code": error.get("code") if isinstance(error, dict) else None,
            "cost_usd": float(run.cost_usd or 0),
            "url": f"/api/v1/spaces/{run.space_id}/runs/{run.id}",
        },
    }


def _wants(endpoint: WebhookEndpoint, automation_id: uuid.UUID | None) -> bool:
    return not endpoint.automation_ids or str(automation_id) in endpoint.automation_ids


async def owe(
    session: AsyncSession,
    endpoint: WebhookEndpoint,
    payload: dict[str, Any],
    *,
    space_id: uuid.UUID | None = None,
    run_id: uuid.UUID | None = None,
    max_attempts: int = len(RETRY_SCHEDULE),
) -> WebhookDelivery:
    """Record one delivery owed to `endpoint`, due now, and wake a sender once the transaction commits.

    `space_id` is the space the event happened in (the operator-wide endpoint belongs to none).
    """
    space = space_id if space_id is not None else endpoint.space_id
    if space is None:
        raise ValueError("a delivery to the operator-wide endpoint names the space of its event")
    return await _owe(
        session, space, payload, endpoint_id=endpoint.id, run_id=run_id, max_attempts=max_attempts
    )


async def _owe(
    session: AsyncSession,
    space_id: uuid.UUID,
    payload: dict[str, Any],
    *,
    endpoint_id: uuid.UUID | None = None,
    callback_url: str | None = None,
    run_id: uuid.UUID | None,
    max_attempts: int,
) -> WebhookDelivery:
    delivery = WebhookDelivery(
        id=uuid.uuid4(),
        space_id=space_id,
        endpoint_id=endpoint_id,
        callback_url=callback_url,
        run_id=run_id,
        event_type=payload["type"],
        payload=payload,
        status="pending",
        attempts=0,
        max_attempts=max_attempts,
        next_attempt_at=utcnow(),
        created_at=utcnow(),
    )
    await WebhookDeliveryRepository(session).create(delivery, flush=False)
    jobs.enqueue(DELIVER_TASK, str(delivery.id), queue=SYSTEM_QUEUE)
    return delivery


async def record_run_finished(session: AsyncSession, run: Run, *, endpoints_listening: bool = True) -> int:
    """Owe `automation.run.<status>` to every endpoint of the run's space that listens; answer how many.

    Call it in the transaction that makes the run terminal, so the notice exists exactly when the
    new status does. `endpoints_listening` False: the caller's own statement found none listening.
    """
    payload = run_event(run, utcnow())
    endpoints = (
        await WebhookEndpointRepository(session).listening(run.space_id, payload["type"])
        if endpoints_listening
        else []
    )
    owed = 0
    for endpoint in endpoints:
        if _wants(endpoint, run.automation_id):
            await owe(session, endpoint, payload, space_id=run.space_id, run_id=run.id)
            owed += 1
    if run.callback_url:
        # The run's own callback, signed with the space's callback secret.
        await _owe(
            session,
            run.space_id,
            payload,
            callback_url=run.callback_url,
            run_id=run.id,
            max_attempts=len(RETRY_SCHEDULE),
        )
        owed += 1
    if owed:
        await session.flush()
    return owed


def approval_event(invocation: ActionInvocation, event_type: str, now: datetime) -> dict[str, Any]:
    """The body of an `approval.requested` / `approval.decided` delivery: the call, never its params."""
    return {
        "type": event_type,
        "timestamp": now.isoformat(),
        "data": {
            "approval_id": str(invocation.id),
            "space_id": str(invocation.space_id),
            "automation_id": str(invocation.automation_id),
            "run_id": str(invocation.run_id),
            "step_id": invocation.step_id,
            "capability": invocation.capability,
            "status": invocation.status,
            "decision_scope": invocation.decision_scope,
            "denied_reason": invocation.denied_reason,
            "expires_at": invocation.expires_at.isoformat() if invocation.expires_at else None,
            "url": f"/api/v1/spaces/{invocation.space_id}/approvals/{invocation.id}",
        },
    }


async def record_approval_event(session: AsyncSession, invocation: ActionInvocation, event_type: str) -> int:
    """Owe `approval.requested` or `approval.decided` to every endpoint of the space that listens."""
    payload = approval_event(invocation, event_type, utcnow())
    endpoints = await WebhookEndpointRepository(session).listening(invocation.space_id, event_type)
    owed = 0
    for endpoint in endpoints:
        if _wants(endpoint, invocation.automation_id):
            await owe(session, endpoint, payload, space_id=invocation.space_id, run_id=invocation.run_id)
            owed += 1
    if owed:
        await session.flush()
    return owed
