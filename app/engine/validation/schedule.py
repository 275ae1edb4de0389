"""Save-time checks of schedule triggers: cron syntax, IANA time zone, how often it fires."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise

from app.definitions.pointers import join
from app.engine.cron import cron_problem, is_valid_timezone
from app.engine.schedule import ScheduleError, next_fire_after
from app.engine.validation.problems import Problem

WARN_INTERVAL = timedelta(minutes=15)
SAMPLED_FIRES = 120
# A fixed start keeps the verdict the same whenever the definition is validated.
_REFERENCE = datetime(2026, 1, 5, tzinfo=UTC)


def shortest_interval(expression: str, timezone: str) -> timedelta | None:
    """The shortest gap between consecutive fires over a sample of upcoming fires (None: it never fires)."""
    fires: list[datetime] = []
    moment = _REFERENCE
    try:
        for _ in range(SAMPLED_FIRES):
            moment = next_fire_after(expression, timezone, moment)
            fires.append(moment)
    except ScheduleError:
        return None
    return min((b - a for a, b in pairwise(fires)), default=None)


def check_schedule(config: dict[str, object], base: tuple[str | int, ...]) -> list[Problem]:
    problems: list[Problem] = []
    cron = config.get("cron")
    timezone = config.get("timezone", "UTC")
    zone_ok = isinstance(timezone, str) and is_valid_timezone(timezone)
    if isinstance(timezone, str) and not zone_ok:
        problems.append(
            Problem(
                join(*base, "timezone"), "invalid_timezone", f"{timezone!r} is not an IANA time zone name"
            )
        )
    if not isinstance(cron, str):
        return problems
    reason = cron_problem(cron)
    if reason is not None:
        code = "schedule_too_frequent" if len(cron.split()) == 6 else "invalid_cron"
        problems.append(Problem(join(*base, "cron"), code, reason))
        return problems
    interval = shortest_interval(cron, timezone if zone_ok and isinstance(timezone, str) else "UTC")
    if interval is None:
        problems.append(
            Problem(join(*base, "cron"), "invalid_cron", "this schedule never fires (no such date)")
        )
    elif interval < timedelta(minutes=1):
        problems.append(
            Problem(join(*base, "cron"), "schedule_too_frequent", "fires more than once a minute")
        )
    elif interval is not None and interval < WARN_INTERVAL:
        minutes = int(interval.total_seconds() // 60)
        problems.append(
            Problem(
                join(*base, "cron"),
                "schedule_frequent",
                f"fires every {minutes} minute(s); an event or webhook trigger may suit better",
                "warning",
            )
        )
    return problems
