"""Save-time checks of schedule triggers: cron syntax, IANA time zone, how often it fires."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache
from itertools import pairwise
from zoneinfo import ZoneInfo, available_timezones

from croniter import croniter

from app.definitions.pointers import join
from app.engine.validation.problems import Problem

MACROS = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
WARN_INTERVAL = timedelta(minutes=15)
SAMPLED_FIRES = 120
# A fixed start keeps the verdict the same whenever the definition is validated.
_REFERENCE = datetime(2026, 1, 5)


@cache
def _zones() -> frozenset[str]:
    # Membership in the installed database, not ZoneInfo(name) alone: a name is a file path to it.
    return frozenset(available_timezones())


def is_valid_timezone(name: str) -> bool:
    return name in _zones()


def cron_problem(expression: str) -> str | None:
    """Why a cron expression is refused, or None when it is a five-field (or macro) expression."""
    fields = expression.split()
    if len(fields) == 1 and fields[0] in MACROS:
        return None
    if len(fields) == 6:
        return "schedules have minute resolution: use five fields (minute hour day month weekday)"
    if len(fields) != 5:
        return f"expected five fields (minute hour day month weekday), got {len(fields)}"
    try:
        valid = croniter.is_valid(expression)
    except Exception:  # croniter raises assorted types on hostile input
        valid = False
    return None if valid else "not a valid cron expression"


def shortest_interval(expression: str, timezone: str) -> timedelta | None:
    """The shortest gap between consecutive fires over a sample of upcoming fires."""
    try:
        start = _REFERENCE.replace(tzinfo=ZoneInfo(timezone))
        schedule = croniter(expression, start)
        fires = [schedule.get_next(datetime) for _ in range(SAMPLED_FIRES)]
    except Exception:  # e.g. 30 February never fires: no interval to judge
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
    if interval is not None and interval < timedelta(minutes=1):
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
