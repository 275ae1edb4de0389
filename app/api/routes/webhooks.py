"""The webhook endpoint external systems call: authenticated by a trigger's own bearer token."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Request, Response, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.api.body import JsonBodyRoute
from app.api.deps import LimitsDep, RateLimiterDep, SessionDep, SettingsDep
from app.api.schemas import FireOut
from app.services.webhook_endpoints import UrlPolicy
from app.services.webhooks import webhook_service

router = APIRouter(prefix="/automations", tags=["webhooks"], route_class=JsonBodyRoute)
_trigger_bearer = HTTPBearer(auto_error=False, description="The webhook trigger's token (not an API token).")


@router.post(
    "/{automation_id}/fire",
    status_code=status.HTTP_202_ACCEPTED,
    summary="Fire a webhook trigger (202 with the new run; 200 when the idempotency key repeats)",
)
async def fire(
    automation_id: uuid.UUID,
    request: Request,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    limits: LimitsDep,
    limiter: RateLimiterDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_trigger_bearer)],
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
    callback_url: Annotated[
        str | None,
        Query(min_length=1, max_length=2048, description="Also deliver the run's terminal event here."),
    ] = None,
) -> FireOut:
    raw = await request.body()
    body = await request.json() if raw else {}
    result = await webhook_service.fire(
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
    url = f"/api/v1/spaces/{result.run.space_id}/runs/{result.run.id}"
    response.headers["Location"] = url
    if not result.created:
        response.status_code = status.HTTP_200_OK
    return FireOut(run_id=result.run.id, status=result.run.status, url=url)
