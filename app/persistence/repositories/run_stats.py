"""Aggregates over runs for charts: runs and spend per UTC day by status, and duration percentiles.

Everything is summed in PostgreSQL over one space's runs created since a bound (optionally one
automation's), read through `ix_runs_space_created` or `ix_runs_automation_created`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import ColumnElement, Date, cast, func, literal_column, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.persistence.models import Run


@dataclass(frozen=True)
class DayStatusCount:
    """Runs created on one UTC day that are now in one status, and their model spend."""

    day: date
    status: str
    runs: int
    cost_usd: Decimal


@dataclass(frozen=True)
class Durations:
    """Wall-clock time from start to finish of the finished runs (milliseconds)."""

    count: int
    p50_ms: float | None
    p95_ms: float | None


@dataclass(frozen=True)
class AutomationCount:
    """One automation's runs in the range: how many, how many failed, and their model spend."""

    automation_id: uuid.UUID
    runs: int
    failed: int
    cost_usd: Decimal


FAILED_STATUSES = ("failed", "timed_out")


class RunStatsRepository:
    """Read-only aggregates over runs, bound to the caller's session."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    def _scope(
        self, space_id: uuid.UUID, since: datetime, automation_id: uuid.UUID | None
    ) -> list[ColumnElement[bool]]:
        conditions: list[ColumnElement[bool]] = [Run.space_id == space_id, Run.created_at >= since]
        if automation_id is not None:
            conditions.append(Run.automation_id == automation_id)
        return conditions

    async def per_day(
        self, space_id: uuid.UUID, since: datetime, automation_id: uuid.UUID | None = None
    ) -> list[DayStatusCount]:
        """Count and spend per (UTC day of creation, status); days without runs are absent."""
        day = cast(func.timezone("UTC", Run.created_at), Date).label("day")
        statement = (
            select(day, Run.status, func.count().label("runs"), func.coalesce(func.sum(Run.cost_usd), 0))
            .where(*self._scope(space_id, since, automation_id))
            .group_by(literal_column("1"), Run.status)
            .order_by(literal_column("1"))
        )
        rows = (await self.session.execute(statement)).all()
        return [DayStatusCount(row[0], str(row[1]), int(row[2]), Decimal(row[3])) for row in rows]

    async def durations(
        self, space_id: uuid.UUID, since: datetime, automation_id: uuid.UUID | None = None
    ) -> Durations:
        """p50 and p95 of start-to-finish time over the runs that started and finished."""
        elapsed = func.extract("epoch", Run.finished_at - Run.started_at) * 1000
        statement = select(
            func.count(),
            func.percentile_cont(0.5).within_group(elapsed),
            func.percentile_cont(0.95).within_group(elapsed),
        ).where(
            *self._scope(space_id, since, automation_id),
            Run.started_at.is_not(None),
            Run.finished_at.is_not(None),
        )
        count, p50, p95 = (await self.session.execute(statement)).one()
        return Durations(int(count), None if p50 is None else float(p50), None if p95 is None else float(p95))

    async def per_automation(self, space_id: uuid.UUID, since: datetime, limit: int) -> list[AutomationCount]:
        """The space's automations with runs in the range, most spend first, then most failures."""
        failed = func.count().filter(Run.status.in_(FAILED_STATUSES))
        spend = func.coalesce(func.sum(Run.cost_usd), 0)
        statement = (
            select(Run.automation_id, func.count(), failed, spend)
            .where(*self._scope(space_id, since, None))
            .group_by(Run.automation_id)
            .order_by(spend.desc(), failed.desc(), func.count().desc(), Run.automation_id)
            .limit(limit)
        )
        rows = (await self.session.execute(statement)).all()
        return [AutomationCount(row[0], int(row[1]), int(row[2]), Decimal(row[3])) for row in rows]
