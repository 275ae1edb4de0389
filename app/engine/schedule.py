"""When schedule triggers fire: cron slots in a time zone's wall time, mapped to UTC with explicit DST rules.

Cron fields are matched against the LOCAL wall time of the trigger's IANA time zone. croniter walks naive
wall times only; this module maps each wall time to a UTC instant itself, because croniter's own time zone
handling has had DST bugs. The mapping ``f(wall) -> instant`` is:

- a wall time that exists once maps to that instant;
- a wall time that happens twice (clocks fall back) maps to its FIRST occurrence (``fold=0``), so the
  repeated stretch of the night fires nothing a second time;
- a wall time that does not exist (clocks spring forward) maps to the first instant after the gap, so every
  slot inside the gap collapses into one fire there, which is also where the first slot after the gap fires.

``f`` never decreases as wall time grows, so "the fires" are simply the distinct values of ``f`` over the
cron's slots, in order. Both the next fire after an instant and the latest fire at or before one are then a
single croniter step from a wall-time bound (see `_horizon`), however long the trigger was down.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from croniter import croniter
from croniter.croniter import CroniterError

from app.engine.cron import cron_problem, is_valid_timezone

CatchUp = Literal["latest", "none"]
CATCH_UP_MODES: frozenset[str] = frozenset({"latest", "none"})
# Longer than any real gap between matches (29 February skips 2100, an 8-year wait) and still a few
# milliseconds of croniter work when an expression never matches, e.g. 30 February.
MAX_YEARS_BETWEEN_FIRES = 10

_SECOND = timedelta(seconds=1)


class ScheduleError(ValueError):
    """A schedule that cannot be evaluated: invalid cron or time zone, or a cron that never fires."""


@dataclass(frozen=True, slots=True)
class TickPlan:
    """What beat does with a due trigger: start a run for `scheduled_for` (unless None), then store
    `next_fire_at` as the trigger's next fire."""

    scheduled_for: datetime | None
    next_fire_at: datetime


def next_fire_after(cron: str, timezone: str, after: datetime) -> datetime:
    """The first fire strictly after the aware instant `after`, as an aware UTC datetime.

    Cron fields are evaluated in the wall time of the IANA zone `timezone`. Daylight saving time:

    - a slot whose wall time does not exist (spring forward) fires once, at the first instant after the
      gap (e.g. 02:30 on a 02:00 -> 03:00 night fires at 03:00). Several slots in one gap, and a slot at the
      gap's end, collapse into that single fire: never a burst;
    - a slot whose wall time happens twice (fall back) fires once, at its first occurrence; the repeated
      stretch fires nothing again.

    Raises `ScheduleError` for an invalid cron or time zone, or when the cron has no slot within
    `MAX_YEARS_BETWEEN_FIRES` years (e.g. ``0 0 30 2 *``).
    """
    zone = _zone(timezone)
    wall = _step(cron, _horizon(zone, _aware(after, "after")) - _SECOND, forward=True)
    return _to_utc(zone, wall)


def first_fire_at(cron: str, timezone: str, now: datetime) -> datetime:
    """The first fire of a trigger created, edited or reactivated at `now`.

    No catch-up: slots before the trigger existed, or while it was paused, never fire.
    """
    return next_fire_after(cron, timezone, now)


def latest_fire_at_or_before(cron: str, timezone: str, instant: datetime) -> datetime:
    """The latest fire at or before the aware `instant`, as an aware UTC datetime, with the DST rules of
    `next_fire_after`.

    One croniter step back from the wall time of `instant`, whatever the distance to that fire. When
    `instant` lies in the repeated stretch of a fall-back night (second pass), slots later on the wall
    clock already fired on the first pass: for ``45 1 * * *`` at 01:40 EST the latest fire is 01:45 EDT
    that night, not the day before. A collapsed spring-forward fire counts once, at the first instant
    after the gap.
    """
    zone = _zone(timezone)
    wall = _step(cron, _horizon(zone, _aware(instant, "instant")), forward=False)
    return _to_utc(zone, wall)


def plan_tick(cron: str, timezone: str, catch_up: CatchUp, next_fire_at: datetime, now: datetime) -> TickPlan:
    """What to fire for a trigger whose stored `next_fire_at` is due (<= `now`), and its next fire.

    - ``catch_up="latest"``: ONE run for the latest fire <= `now`, however many were missed;
    - ``catch_up="none"``: a run only when the stored `next_fire_at` is still the latest fire <= `now`
      (beat is merely late); after missed fires (downtime), no run, the schedule just moves on.

    `scheduled_for` is never earlier than the stored `next_fire_at` (a stored instant that is not a fire of
    this cron still stands for itself), and the returned `next_fire_at` is the first fire strictly after
    `now`. The work does not grow with the downtime. A trigger that is not due yet gets a plan that fires
    nothing and keeps its `next_fire_at`.
    """
    if catch_up not in CATCH_UP_MODES:
        raise ScheduleError(f"catch_up must be 'latest' or 'none', not {catch_up!r}")
    stored = _aware(next_fire_at, "next_fire_at").astimezone(UTC)
    if stored > _aware(now, "now"):
        return TickPlan(scheduled_for=None, next_fire_at=stored)
    latest = latest_fire_at_or_before(cron, timezone, now)
    upcoming = next_fire_after(cron, timezone, now)
    if catch_up == "none" and latest > stored:
        return TickPlan(scheduled_for=None, next_fire_at=upcoming)
    return TickPlan(scheduled_for=max(latest, stored), next_fire_at=upcoming)


def _zone(name: str) -> ZoneInfo:
    if not is_valid_timezone(name):
        raise ScheduleError(f"{name!r} is not an IANA time zone name")
    return ZoneInfo(name)


def _aware(instant: datetime, name: str) -> datetime:
    # A naive datetime is a caller's bug, not a bad schedule: plain ValueError, not ScheduleError.
    if instant.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware, got {instant!r}")
    return instant


def _step(cron: str, start: datetime, *, forward: bool) -> datetime:
    """The first whole-minute wall time matching `cron` strictly after (or before) the naive `start`."""
    problem = cron_problem(cron)
    if problem is not None:
        raise ScheduleError(f"invalid cron expression {cron!r}: {problem}")
    try:
        walls = croniter(cron, start, max_years_between_matches=MAX_YEARS_BETWEEN_FIRES)
        found: datetime = walls.get_next(datetime) if forward else walls.get_prev(datetime)
    except (CroniterError, OverflowError) as error:
        raise ScheduleError(
            f"cron expression {cron!r} has no slot within {MAX_YEARS_BETWEEN_FIRES} years of {start:%Y-%m-%d}"
        ) from error
    return found


def _horizon(zone: ZoneInfo, instant: datetime) -> datetime:
    """The naive wall time H that splits whole-minute slots at `instant`: f(w) <= instant exactly when w < H.

    Usually H is the wall time of `instant` rounded down to the second, plus one second. In the repeated
    stretch of a fall-back night (second pass), every slot of the stretch already fired on the first pass,
    so H is the wall time where the stretch ends (the transition instant read with the old offset).
    """
    local = instant.astimezone(zone)
    first_pass = local.replace(fold=0)
    old_offset = first_pass.utcoffset()
    if local.fold == 0 or old_offset is None or old_offset == local.utcoffset():
        return local.replace(tzinfo=None, microsecond=0) + _SECOND
    edge = _transition(zone, first_pass.astimezone(UTC), instant.astimezone(UTC))
    return (edge + old_offset).replace(tzinfo=None)


def _to_utc(zone: ZoneInfo, wall: datetime) -> datetime:
    """f: the instant a naive wall time fires at (first occurrence; first instant after a gap)."""
    # For a wall time that exists, fold=0 is its first occurrence. For one inside a gap, PEP 495 reads
    # fold=0 with the offset from before the gap (landing after it) and fold=1 with the offset from after
    # (landing before it): the wall time does not round-trip, and the gap's end lies between the two.
    first = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
    if first.astimezone(zone).replace(tzinfo=None) == wall:
        return first
    return _transition(zone, wall.replace(tzinfo=zone, fold=1).astimezone(UTC), first)


def _transition(zone: ZoneInfo, before: datetime, after: datetime) -> datetime:
    """The instant in (before, after] where `zone`'s UTC offset changes, to the second.

    zoneinfo does not expose its transitions, so bisect. The callers' windows span one gap or fold (at most
    a day, e.g. Samoa in 2011): about 17 steps.
    """
    low, high = math.floor(before.timestamp()), math.ceil(after.timestamp())
    offset_before = datetime.fromtimestamp(low, zone).utcoffset()
    while high - low > 1:
        middle = (low + high) // 2
        if datetime.fromtimestamp(middle, zone).utcoffset() == offset_before:
            low = middle
        else:
            high = middle
    return datetime.fromtimestamp(high, UTC)
