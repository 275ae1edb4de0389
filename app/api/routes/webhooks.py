"""The webhook endpoint external systems call: authenticated by a trigger's own bearer token."""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request, Response, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app import metrics
from app.api.body import JsonBodyRoute
from app.api.deps import FireSetupDep, app_state, request_transaction
from app.api.schemas import CallerRunOut, FireOut
from app.config import Settings
from app.definitions.run_states import RunStatus
from app.errors import AppError
from app.integrations.rate_limit import RateLimiter
from app.persistence.models import Run
from app.persistence.models.runs import MAX_PRIORITY, MIN_PRIORITY
from app.persistence.run_events import RunEventHub
from app.persistence.transaction import autocommit
from app.persistence.types import AsyncSession
from app.services.outbound.endpoints import UrlPolicy
from app.services.runs.fire_request import FireResult
from app.services.runs.follow import MAX_WAIT_SECONDS, caller_view, is_finished, wait_until_finished
from app.services.runs.limits import DispatchLimits
from app.services.triggers.webhooks import webhook_service

router = APIRouter(prefix="/automations", tags=["webhooks"], route_class=JsonBodyRoute)
trigger_bearer = HTTPBearer(auto_error=False, description="The webhook trigger's token (not an API token).")


@router.post(
    "/{automation_id}/fire",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=FireOut,
    summary="Fire a webhook trigger (202 with the new run; 200 when the idempotency key repeats)",
)
async def fire(
    automation_id: uuid.UUID,
    request: Request,
    setup: FireSetupDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(trigger_bearer)],
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
    callback_url: Annotated[
        str | None,
        Query(min_length=1, max_length=2048, description="Also deliver the run's terminal event here."),
    ] = None,
    priority: Annotated[
        int,
        Query(ge=MIN_PRIORITY, le=MAX_PRIORITY, description="Place in the queue if queued (higher first)."),
    ] = 0,
    wait: Annotated[
        float,
        Query(
            ge=0,
            le=MAX_WAIT_SECONDS,
            description="Answer 200 with the finished run if it ends within this many seconds.",
        ),
    ] = 0,
) -> Response:
    try:
        # Committed, and the wake-up sent, before the answer is built.
        async with request_transaction(request) as session:
            result = await _fire(
                automation_id,
                request,
                session,
                setup.settings,
                setup.limits,
                setup.limiter,
                credentials,
                idempotency_key,
                callback_url,
                priority,
            )
    except AppError as exc:
        metrics.webhook_answered(exc.status_code)
        raise
    run = result.run
    url = f"/api/v1/spaces/{run.space_id}/runs/{run.id}"
    run_url = caller_run_url(automation_id, run.id)
    code = status.HTTP_202_ACCEPTED if result.created else status.HTTP_200_OK
    if wait > 0:
        # The fire's transaction is over: the wait holds no connection, only a hub subscription.
        hub = app_state(request, "run_events", RunEventHub)
        finished = await wait_until_finished(hub, run.space_id, run.id, wait, _reader(request, run.id))
        if finished is not None and is_finished(finished):
            metrics.webhook_answered(status.HTTP_200_OK)
            visibility = await _output_visibility(request, run.trigger_id)
            answer = {**caller_view(finished, run_url, visibility), "url": url, "run_url": run_url}
            return _json(answer, status.HTTP_200_OK, url)
        code = status.HTTP_202_ACCEPTED
    metrics.webhook_answered(code)
    # The answer is four known strings (`FireOut`): written directly, without a model to validate
    # and serialise on every fire.
    answer = {
        "run_id": str(run.id),
        "status": RunStatus(run.status).value,
        "url": url,
        "run_url": run_url,
    }
    return _json(answer, code, url)


def caller_run_url(automation_id: uuid.UUID, run_id: uuid.UUID) -> str:
    """Where a webhook caller reads the run it fired, with the same trigger token."""
    return f"/api/v1/automations/{automation_id}/runs/{run_id}"


def _json(answer: dict[str, Any], code: int, location: str) -> Response:
    return Response(
        json.dumps(answer, separators=(",", ":"), default=str).encode(),
        status_code=code,
        media_type="application/json",
        headers={"Location": location},
    )


def _reader(request: Request, run_id: uuid.UUID) -> Callable[[], Awaitable[Run | None]]:
    """Reads the run, each time in a short transaction of its own."""

    async def read() -> Run | None:
        async with request_transaction(request) as session:
            return await session.get(Run, run_id)

    return read


async def _output_visibility(request: Request, trigger_id: uuid.UUID | None) -> str:
    async with request_transaction(request) as session:
        return await webhook_service.output_visibility(session, trigger_id)


@router.get(
    "/{automation_id}/runs/{run_id}",
    response_model=CallerRunOut,
    summary="A run this webhook trigger fired, read with the same trigger token (404 for any other)",
)
async def caller_run(
    automation_id: uuid.UUID,
    run_id: uuid.UUID,
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(trigger_bearer)],
) -> Response:
    token = credentials.credentials if credentials else None
    async with request_transaction(request) as session:
        run, visibility = await webhook_service.caller_run(session, automation_id, token, run_id)
    view = caller_view(run, caller_run_url(automation_id, run.id), visibility)
    return _json(view, status.HTTP_200_OK, view["url"])


async def _fire(
    automation_id: uuid.UUID,
    request: Request,
    session: AsyncSession,
    settings: Settings,
    limits: DispatchLimits,
    limiter: RateLimiter,
    credentials: HTTPAuthorizationCredentials | None,
    idempotency_key: str | None,
    callback_url: str | None,
    priority: int,
) -> FireResult:
    raw = await request.body()
    body = await request.json() if raw else {}
    # The common fire is one lookup and one INSERT, each its own transaction: no BEGIN and COMMIT
    # round trips. The dispatcher opens a transaction for a fire that needs one (a key, a policy, a cap).
    await autocommit(session)
    return await webhook_service.fire(
        session,
        automation_id,
        credentials.credentials if credentials else None,
        body,
        idempotency_key=idempotency_key,
        body_bytes=len(raw),
        limits=limits,
        limiter=limiter,
        rate_limit=settings.webhook_rate_limit,
        rate_window_seconds=settings.webhook_rate_window_seconds,
        callback_url=callback_url,
        url_policy=UrlPolicy.from_settings(settings),
        priority=priority,
    )
