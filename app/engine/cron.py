"""Cron syntax and time zone names: the checks both saving and scheduling rely on."""

from __future__ import annotations

from functools import cache
from zoneinfo import available_timezones

from croniter import croniter

MACROS = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})


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
