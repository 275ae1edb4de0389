"""Run statistics of a space and of one automation, and the space's queue depth, for charts."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Query

from app.api.deps import ReadinessDep, SessionDep, SpaceDep
from app.api.stats_schemas import QueueDepthOut, RunStatsOut
from app.services.runs.queue_depth import DEFAULT_MINUTES, MAX_MINUTES, queue_depth_service
from app.services.runs.stats import DEFAULT_DAYS, MAX_DAYS, run_stats_service

router = APIRouter(prefix="/spaces/{space_id}/automations", tags=["automations"])
queue_router = APIRouter(prefix="/spaces/{space_id}/queue", tags=["runs"])

DaysQuery = Annotated[
    int,
    Query(ge=1, le=MAX_DAYS, description=f"How many UTC days back, today included (1 to {MAX_DAYS})."),
]


@router.get(
    "/stats", summary="Runs per day by status, spend per day and durations of the space's automations"
)
async def space_stats(session: SessionDep, access: SpaceDep, days: DaysQuery = DEFAULT_DAYS) -> RunStatsOut:
    return RunStatsOut.model_validate(await run_stats_service.of_space(session, access, days))


@router.get(
    "/{automation_id:uuid}/stats",
    summary="Runs per day by status, spend per day and durations of one automation",
)
async def automation_stats(
    automation_id: uuid.UUID, session: SessionDep, access: SpaceDep, days: DaysQuery = DEFAULT_DAYS
) -> RunStatsOut:
    return RunStatsOut.model_validate(
        await run_stats_service.of_automation(session, access, automation_id, days)
    )


MinutesQuery = Annotated[
    int,
    Query(
        ge=1,
        le=MAX_MINUTES,
        description=f"How many minutes back, the current one included (1 to {MAX_MINUTES}).",
    ),
]


@queue_router.get("/depth", summary="The space's queued and pending runs per worker queue, minute by minute")
async def queue_depth(
    session: SessionDep, access: SpaceDep, readiness: ReadinessDep, minutes: MinutesQuery = DEFAULT_MINUTES
) -> QueueDepthOut:
    # Beat's last tick tells whether the current minute is sampled yet.
    depth = await queue_depth_service.of_space(
        session, access, minutes, last_tick=await readiness.last_tick()
    )
    return QueueDepthOut.model_validate(depth)
