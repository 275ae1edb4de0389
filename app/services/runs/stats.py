"""Run statistics for charts: runs per day by status, spend per day, duration percentiles.

Answers are cached in-process for a few seconds per (space, automation, days): a page that draws two
charts, or many people looking at one list, cost one aggregate query, and the numbers are at most
`CACHE_SECONDS` old.
"""

from __future__ import annotations

import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

from app.definitions.run_states import RunStatus
from app.persistence.repositories.run_stats import RunStatsRepository
from app.persistence.types import AsyncSession
from app.services.automations.store import automation_service
from app.services.identity.access import SpaceAccess

MAX_DAYS = 90
"""The longest range a chart may ask for: the query stays bounded however old the space is."""
DEFAULT_DAYS = 14
CACHE_SECONDS = 10.0
CACHE_ENTRIES = 512
TOP_AUTOMATIONS = 50
"""A space's answer lists at most this many automations (most spend, then most failures, first)."""

_StatsKey = tuple[uuid.UUID, uuid.UUID | None, int]


@dataclass
class _Cache:
    """A small time-bounded LRU of answers, per process."""

    entries: OrderedDict[_StatsKey, tuple[float, dict[str, Any]]] = field(default_factory=OrderedDict)

    def get(self, key: _StatsKey) -> dict[str, Any] | None:
        found = self.entries.get(key)
        if found is None or found[0] < time.monotonic():
            return None
        self.entries.move_to_end(key)
        return found[1]

    def put(self, key: _StatsKey, answer: dict[str, Any]) -> None:
        self.entries[key] = (time.monotonic() + CACHE_SECONDS, answer)
        self.entries.move_to_end(key)
        while len(self.entries) > CACHE_ENTRIES:
            self.entries.popitem(last=False)


def _days(until: date, days: int) -> list[date]:
    return [until - timedelta(days=offset) for offset in range(days - 1, -1, -1)]


@dataclass
class _Day:
    """One day of the range as it is summed up (spend summed exactly, rounded when answered)."""

    day: date
    total: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    cost_usd: Decimal = Decimal(0)

    def as_dict(self) -> dict[str, Any]:
        return {
            "day": self.day,
            "total": self.total,
            "by_status": self.by_status,
            "cost_usd": float(self.cost_usd),
        }


class RunStatsService:
    def __init__(self) -> None:
        self._cache = _Cache()

    async def of_space(self, session: AsyncSession, access: SpaceAccess, days: int) -> dict[str, Any]:
        """Every automation of the space together, over the last `days` UTC days (today included)."""
        return await self._stats(session, access.space_id, None, days)

    async def of_automation(
        self, session: AsyncSession, access: SpaceAccess, automation_id: uuid.UUID, days: int
    ) -> dict[str, Any]:
        """One automation of the space (404 when it is not one of the space's)."""
        automation = await automation_service.get(session, access, automation_id)
        return await self._stats(session, access.space_id, automation.id, days)

    async def _stats(
        self, session: AsyncSession, space_id: uuid.UUID, automation_id: uuid.UUID | None, days: int
    ) -> dict[str, Any]:
        key = (space_id, automation_id, days)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        today = datetime.now(UTC).date()
        first = today - timedelta(days=days - 1)
        since = datetime(first.year, first.month, first.day, tzinfo=UTC)
        repository = RunStatsRepository(session)
        counts = await repository.per_day(space_id, since, automation_id)
        durations = await repository.durations(space_id, since, automation_id)
        by_automation = (
            None
            if automation_id is not None
            else [
                {
                    "automation_id": entry.automation_id,
                    "runs": entry.runs,
                    "failed": entry.failed,
                    "cost_usd": float(entry.cost_usd),
                }
                for entry in await repository.per_automation(space_id, since, TOP_AUTOMATIONS)
            ]
        )
        per_day = {day: _Day(day) for day in _days(today, days)}
        totals: dict[str, int] = {}
        for row in counts:
            entry = per_day.get(row.day)
            if entry is None:
                continue
            entry.by_status[row.status] = row.runs
            entry.total += row.runs
            entry.cost_usd += row.cost_usd
            totals[row.status] = totals.get(row.status, 0) + row.runs
        answer = {
            "automation_id": automation_id,
            "days": days,
            "first_day": first,
            "last_day": today,
            "statuses": [status.value for status in RunStatus],
            "per_day": [entry.as_dict() for entry in per_day.values()],
            "totals": {
                "runs": sum(totals.values()),
                "by_status": totals,
                "cost_usd": float(sum((entry.cost_usd for entry in per_day.values()), Decimal(0))),
            },
            "by_automation": by_automation,
            "duration_ms": {"finished": durations.count, "p50": durations.p50_ms, "p95": durations.p95_ms},
        }
        self._cache.put(key, answer)
        return answer


run_stats_service = RunStatsService()
