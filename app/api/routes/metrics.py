"""`GET /metrics`: Prometheus text format, every process of this host (see docs/metrics.md)."""

from __future__ import annotations

from fastapi import APIRouter, Response
from fastapi.responses import PlainTextResponse
from starlette.concurrency import run_in_threadpool

from app import metrics

router = APIRouter(tags=["health"])


@router.get(
    "/metrics",
    summary="Prometheus metrics of the API and worker processes of this host",
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}},
)
async def prometheus_metrics() -> Response:
    # Reading every process's files is blocking file I/O: off the event loop.
    body, content_type = await run_in_threadpool(metrics.exposition)
    return Response(content=body, media_type=content_type)
