"""Liveness and readiness probes."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.api.deps import ReadinessDep

router = APIRouter(tags=["health"])


@router.get("/healthz", summary="The process is alive")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz", summary="The database and the broker are reachable (checked at most once a second)")
async def readyz(probe: ReadinessDep) -> JSONResponse:
    readiness = await probe.check()
    return JSONResponse(status_code=200 if readiness.ready else 503, content=readiness.as_dict())
