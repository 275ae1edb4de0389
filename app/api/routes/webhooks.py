"""The webhook endpoint external systems call: authenticated by a trigger's own bearer token."""

from __future__ import annotations

import json
import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Request, Response, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from app import metrics
from app.api.body import JsonBodyRoute
from app.api.deps import FireSetupDep, request_transaction
from app.api.schemas import FireOut
from app.config import Settings
from app.definitions.run_states import RunStatus
from app.errors import AppError
from app.integrations.rate_limit import RateLimiter
from app.persistence.transaction import autocommit
from app.services.dispatch import DispatchLimits, FireResult
from app.services.webhook_endpoints import UrlPolicy
from app.services.webhooks import webhook_service

router = APIRouter(prefix="/automations", tags=["webhooks"], route_class=JsonBodyRoute)
_trigger_bearer = HTTPBearer(auto_error=False, description="The webhook trigger's token (not an API token).")


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
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_trigger_bearer)],
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
    callback_url: Annotated[
        str | None,
        Query(min_length=1, max_length=2048, description="Also deliver the run's terminal event here."),
    ] = None,
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
            )
    except AppError as exc:
        metrics.webhook_answered(exc.status_code)
        raise
    url = f"/api/v1/spaces/{result.run.space_id}/runs/{result.run.id}"
    code = status.HTTP_202_ACCEPTED if result.created else status.HTTP_200_OK
    metrics.webhook_answered(code)
    # The answer is three known strings (`FireOut`): written directly, without a model to validate
    # and serialise on every fire.
    answer = {"run_id": str(result.run.id), "status": RunStatus(result.run.status).value, "url": url}
    return Response(
        json.dumps(answer, separators=(",", ":")).encode(),
        status_code=code,
        media_type="application/json",
        headers={"Location": url},
    )


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
    )
