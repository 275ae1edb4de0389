"""Answers of the run statistics routes (the charts of the automations list and page)."""

from __future__ import annotations

import uuid
from datetime import date, datetime

from pydantic import BaseModel, Field


class DayStatsOut(BaseModel):
    day: date = Field(description="A UTC day; runs count on the day they were created.")
    total: int = Field(description="Runs created that day.")
    by_status: dict[str, int] = Field(description="Of those, how many are now in each status (absent: none).")
    cost_usd: float = Field(description="Model spend of those runs.")


class TotalsOut(BaseModel):
    runs: int
    by_status: dict[str, int]
    cost_usd: float


class DurationsOut(BaseModel):
    finished: int = Field(description="Runs of the range that started and finished.")
    p50: float | None = Field(
        description="Median start-to-finish time in milliseconds (null: none finished)."
    )
    p95: float | None = Field(description="95th percentile start-to-finish time in milliseconds.")


class AutomationStatsOut(BaseModel):
    automation_id: uuid.UUID
    runs: int
    failed: int = Field(description="Of those, failed or timed out.")
    cost_usd: float


class RunStatsOut(BaseModel):
    automation_id: uuid.UUID | None = Field(description="The automation, or null for the whole space.")
    days: int
    first_day: date
    last_day: date = Field(description="Today (UTC).")
    statuses: list[str] = Field(description="Every run status, in lifecycle order (the series of a chart).")
    per_day: list[DayStatsOut] = Field(
        description="One entry per day of the range, oldest first, zeros included."
    )
    totals: TotalsOut
    by_automation: list[AutomationStatsOut] | None = Field(
        description="The space's answer only (null for one automation): the automations with runs in the "
        "range, at most 50, most spend first, then most failures."
    )
    duration_ms: DurationsOut


class QueueSeriesOut(BaseModel):
    queue: str = Field(description="A worker queue (runs.fast, runs.medium, runs.long).")
    queued: list[int] = Field(description="Per minute, oldest first: the space's runs held back (queued).")
    pending: list[int] = Field(description="Per minute: the space's runs admitted and waiting for a worker.")


class QueueDepthOut(BaseModel):
    minutes: int
    first_minute: datetime = Field(description="The first minute of the range (UTC).")
    last_minute: datetime = Field(
        description=(
            "The last minute of the range (UTC): the current one, or the one before while beat has not "
            "sampled the current one yet."
        )
    )
    queues: list[QueueSeriesOut] = Field(
        description="The queues that had runs waiting in the range; a minute without a sample counts 0."
    )
