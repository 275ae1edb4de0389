"""Liveness and readiness probes."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.services.health import check_readiness

router = APIRouter(tags=["health"])


@router.get("/healthz", summary="The process is alive")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz", summary="The database and the broker are reachable")
async def readyz(request: Request) -> JSONResponse:
    state = request.app.state
    readiness = await check_readiness(state.engine, state.redis)
    return JSONResponse(status_code=200 if readiness.ready else 503, content=readiness.as_dict())
