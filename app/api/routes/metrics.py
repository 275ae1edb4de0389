"""`GET /metrics`: Prometheus text format, every process of this host (see docs/metrics.md).

With AUTOMATIONS_METRICS_TOKEN set, only a request bearing that token is answered: the figures say what
the service is doing (runs by status, spend per model, refused webhooks) and are not for anyone who can
reach the port.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Header, Response
from fastapi.responses import PlainTextResponse
from starlette.concurrency import run_in_threadpool

from app import metrics
from app.api.deps import SettingsDep
from app.errors import Unauthorized
from app.security.tokens import hash_token, token_matches

router = APIRouter(tags=["health"])


class MetricsTokenRequired(Unauthorized):
    code = "metrics_token_required"
    message = "This service's /metrics needs its bearer token (AUTOMATIONS_METRICS_TOKEN)."


async def require_metrics_token(
    settings: SettingsDep, authorization: Annotated[str | None, Header()] = None
) -> None:
    """Pass when no token is configured, or when the request bears it (compared in constant time)."""
    if settings.metrics_token is None:
        return
    scheme, _, presented = (authorization or "").partition(" ")
    expected = hash_token(settings.metrics_token.get_secret_value())
    # Both sides are digests of equal length, so the comparison takes the same time whatever was sent.
    if scheme.lower() != "bearer" or not token_matches(presented, expected):
        raise MetricsTokenRequired()


@router.get(
    "/metrics",
    summary="Prometheus metrics of the API and worker processes of this host",
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}},
    dependencies=[Depends(require_metrics_token)],
)
async def prometheus_metrics() -> Response:
    # Reading every process's files is blocking file I/O: off the event loop.
    body, content_type = await run_in_threadpool(metrics.exposition)
    return Response(content=body, media_type=content_type)
