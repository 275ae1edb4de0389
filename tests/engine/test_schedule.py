"""Schedule fires: cron slots in local wall time, mapped to UTC across DST, and beat's tick plan.

Every expected instant below is worked out by hand from the zone's rules, in UTC, with the local
reading in the comment. The property tests compare against a brute-force oracle that walks UTC
minutes and knows neither croniter nor the module's bisection.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.schedule import (
    CatchUp,
    ScheduleError,
    TickPlan,
    first_fire_at,
    latest_fire_at_or_before,
    next_fire_after,
    plan_tick,
)

NY = "America/New_York"
BERLIN = "Europe/Berlin"
MINUTE = timedelta(minutes=1)


def utc(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, micro: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, micro, tzinfo=UTC)


def fires(cron: str, zone: str, after: datetime, count: int) -> list[datetime]:
    out: list[datetime] = []
    for _ in range(count):
        after = next_fire_after(cron, zone, after)
        out.append(after)
    return out


# --- plain schedules ---------------------------------------------------------------------------


def test_every_minute_fires_at_the_next_whole_minute() -> None:
    assert next_fire_after("* * * * *", "UTC", utc(2026, 1, 5, 10, 0, 30)) == utc(2026, 1, 5, 10, 1)
    assert next_fire_after("* * * * *", "UTC", utc(2026, 1, 5, 10, 0, 59, 999999)) == utc(2026, 1, 5, 10, 1)


def test_the_next_fire_is_strictly_after_a_slot() -> None:
    assert next_fire_after("* * * * *", "UTC", utc(2026, 1, 5, 10, 1)) == utc(2026, 1, 5, 10, 2)
    assert next_fire_after("@daily", "UTC", utc(2026, 1, 5)) == utc(2026, 1, 6)


def test_weekdays_at_nine_in_berlin_winter_and_summer() -> None:
    # Friday 2026-01-09 09:00 CET (08:00Z) -> Monday 2026-01-12 09:00 CET.
    assert next_fire_after("0 9 * * 1-5", BERLIN, utc(2026, 1, 9, 8, 0)) == utc(2026, 1, 12, 8, 0)
    # Friday 2026-07-03 14:00 CEST -> Monday 2026-07-06 09:00 CEST (07:00Z).
    assert next_fire_after("0 9 * * 1-5", BERLIN, utc(2026, 7, 3, 12, 0)) == utc(2026, 7, 6, 7, 0)


def test_after_may_be_given_in_any_zone() -> None:
    after = datetime(2026, 1, 9, 3, 0, tzinfo=ZoneInfo(NY))  # 08:00Z
    assert next_fire_after("0 9 * * 1-5", BERLIN, after) == utc(2026, 1, 12, 8, 0)


@pytest.mark.parametrize(
    ("cron", "zone", "after", "expected"),
    [
        ("@daily", "UTC", utc(2026, 1, 5, 10), utc(2026, 1, 6)),
        ("@midnight", "UTC", utc(2026, 1, 5, 10), utc(2026, 1, 6)),
        ("@hourly", "UTC", utc(2026, 1, 5, 10), utc(2026, 1, 5, 11)),
        ("@weekly", "UTC", utc(2026, 1, 5, 10), utc(2026, 1, 11)),  # Sunday 00:00
        ("@yearly", "UTC", utc(2026, 1, 5, 10), utc(2027, 1, 1)),
        ("@annually", "UTC", utc(2026, 1, 5, 10), utc(2027, 1, 1)),
        # 2026-02-01 00:00 IST (+05:30)
        ("@monthly", "Asia/Kolkata", utc(2026, 1, 5, 10), utc(2026, 1, 31, 18, 30)),
        # Monday 2026-01-05 09:30 IST
        ("30 9 * * 1-5", "Asia/Kolkata", utc(2026, 1, 4, 12), utc(2026, 1, 5, 4, 0)),
        # 29 February: the next one after 2026 is 2028.
        ("0 0 29 2 *", "UTC", utc(2026, 1, 1), utc(2028, 2, 29)),
    ],
)
def test_macros_and_zones_without_dst(cron: str, zone: str, after: datetime, expected: datetime) -> None:
    assert next_fire_after(cron, zone, after) == expected


def test_fires_are_utc() -> None:
    fire = next_fire_after("0 9 * * *", BERLIN, utc(2026, 1, 5))
    assert fire.tzinfo is UTC


def test_first_fire_does_not_catch_up() -> None:
    now = utc(2026, 1, 5, 8, 0, 1)  # one second after 09:00 CET
    assert first_fire_at("0 9 * * *", BERLIN, now) == utc(2026, 1, 6, 8, 0)


# --- spring forward ----------------------------------------------------------------------------


def test_spring_forward_new_york_daily_in_the_gap_fires_once_at_the_gap_end() -> None:
    # 2026-03-08 02:00 EST -> 03:00 EDT at 07:00Z; 02:30 does not exist that night.
    assert fires("30 2 * * *", NY, utc(2026, 3, 7), 4) == [
        utc(2026, 3, 7, 7, 30),  # 02:30 EST
        utc(2026, 3, 8, 7, 0),  # 03:00 EDT, the first instant after the gap
        utc(2026, 3, 9, 6, 30),  # 02:30 EDT: back to normal
        utc(2026, 3, 10, 6, 30),
    ]


def test_spring_forward_berlin_daily_in_the_gap_fires_once_at_the_gap_end() -> None:
    # 2026-03-29 02:00 CET -> 03:00 CEST at 01:00Z.
    assert fires("30 2 * * *", BERLIN, utc(2026, 3, 27, 12), 3) == [
        utc(2026, 3, 28, 1, 30),  # 02:30 CET
        utc(2026, 3, 29, 1, 0),  # 03:00 CEST
        utc(2026, 3, 30, 0, 30),  # 02:30 CEST
    ]


def test_spring_forward_new_york_quarter_hours_collapse_into_one_fire() -> None:
    # 02:00, 02:15, 02:30, 02:45 and 03:00 all stand for 07:00Z: one fire, then 03:15 EDT.
    assert fires("*/15 * * * *", NY, utc(2026, 3, 8, 6, 40), 4) == [
        utc(2026, 3, 8, 6, 45),  # 01:45 EST
        utc(2026, 3, 8, 7, 0),  # 03:00 EDT
        utc(2026, 3, 8, 7, 15),  # 03:15 EDT
        utc(2026, 3, 8, 7, 30),
    ]


def test_spring_forward_berlin_quarter_hours_collapse_into_one_fire() -> None:
    assert fires("*/15 * * * *", BERLIN, utc(2026, 3, 29, 0, 40), 3) == [
        utc(2026, 3, 29, 0, 45),  # 01:45 CET
        utc(2026, 3, 29, 1, 0),  # 03:00 CEST
        utc(2026, 3, 29, 1, 15),  # 03:15 CEST
    ]


def test_spring_forward_hourly_slots_do_not_burst() -> None:
    # 02:00 is skipped into 03:00, which is a slot of its own: one fire at 07:00Z.
    assert fires("0 * * * *", NY, utc(2026, 3, 8, 5, 30), 3) == [
        utc(2026, 3, 8, 6, 0),  # 01:00 EST
        utc(2026, 3, 8, 7, 0),  # 03:00 EDT
        utc(2026, 3, 8, 8, 0),  # 04:00 EDT
    ]


# --- fall back ---------------------------------------------------------------------------------


def test_fall_back_new_york_daily_in_the_repeated_hour_fires_once() -> None:
    # 2026-11-01 02:00 EDT -> 01:00 EST at 06:00Z; 01:30 happens at 05:30Z and 06:30Z.
    assert fires("30 1 * * *", NY, utc(2026, 10, 31, 12), 3) == [
        utc(2026, 11, 1, 5, 30),  # 01:30 EDT, the first occurrence
        utc(2026, 11, 2, 6, 30),  # 01:30 EST the next day; never 06:30Z on 1 November
        utc(2026, 11, 3, 6, 30),
    ]


def test_fall_back_berlin_daily_in_the_repeated_hour_fires_once() -> None:
    # 2026-10-25 03:00 CEST -> 02:00 CET at 01:00Z; 02:30 happens at 00:30Z and 01:30Z.
    assert fires("30 2 * * *", BERLIN, utc(2026, 10, 24, 12), 2) == [
        utc(2026, 10, 25, 0, 30),  # 02:30 CEST
        utc(2026, 10, 26, 1, 30),  # 02:30 CET
    ]


def test_fall_back_new_york_half_hours_skip_the_second_pass() -> None:
    assert fires("*/30 * * * *", NY, utc(2026, 11, 1, 4, 45), 4) == [
        utc(2026, 11, 1, 5, 0),  # 01:00 EDT
        utc(2026, 11, 1, 5, 30),  # 01:30 EDT
        utc(2026, 11, 1, 7, 0),  # 02:00 EST; 01:00 and 01:30 EST are not fired
        utc(2026, 11, 1, 7, 30),
    ]


def test_fall_back_berlin_half_hours_skip_the_second_pass() -> None:
    assert fires("*/30 * * * *", BERLIN, utc(2026, 10, 24, 23, 45), 4) == [
        utc(2026, 10, 25, 0, 0),  # 02:00 CEST
        utc(2026, 10, 25, 0, 30),  # 02:30 CEST
        utc(2026, 10, 25, 2, 0),  # 03:00 CET; 02:00 and 02:30 CET are not fired
        utc(2026, 10, 25, 2, 30),
    ]


def test_fall_back_asked_during_the_second_pass() -> None:
    # 06:10Z is 01:10 EST, the second pass: 01:30 EST is not a fire, 02:00 EST is.
    assert next_fire_after("*/30 * * * *", NY, utc(2026, 11, 1, 6, 10)) == utc(2026, 11, 1, 7, 0)
    assert next_fire_after("* * * * *", NY, utc(2026, 11, 1, 6, 10)) == utc(2026, 11, 1, 7, 0)


# --- other zones -------------------------------------------------------------------------------


def test_lord_howe_half_hour_spring_forward() -> None:
    # 2026-10-04 02:00 +10:30 -> 02:30 +11:00 at 15:30Z on 3 October.
    assert fires("15 2 * * *", "Australia/Lord_Howe", utc(2026, 10, 2, 12), 3) == [
        utc(2026, 10, 2, 15, 45),  # 3 October 02:15 +10:30
        utc(2026, 10, 3, 15, 30),  # 4 October 02:30 +11:00, the gap's end
        utc(2026, 10, 4, 15, 15),  # 5 October 02:15 +11:00
    ]


def test_lord_howe_half_hour_fall_back() -> None:
    # 2026-04-05 02:00 +11:00 -> 01:30 +10:30 at 15:00Z on 4 April; 01:30-01:59 happen twice.
    assert fires("*/15 * * * *", "Australia/Lord_Howe", utc(2026, 4, 4, 14, 20), 3) == [
        utc(2026, 4, 4, 14, 30),  # 01:30 +11:00
        utc(2026, 4, 4, 14, 45),  # 01:45 +11:00
        utc(2026, 4, 4, 15, 30),  # 02:00 +10:30; the second 01:30 and 01:45 are not fired
    ]
    assert fires("45 1 * * *", "Australia/Lord_Howe", utc(2026, 4, 4, 12), 2) == [
        utc(2026, 4, 4, 14, 45),  # 5 April 01:45 +11:00
        utc(2026, 4, 5, 15, 15),  # 6 April 01:45 +10:30
    ]


def test_sydney_southern_hemisphere() -> None:
    # Spring forward 2026-10-04 02:00 AEST -> 03:00 AEDT at 16:00Z on 3 October.
    assert next_fire_after("30 2 * * *", "Australia/Sydney", utc(2026, 10, 3, 12)) == utc(2026, 10, 3, 16, 0)
    # Fall back 2026-04-05 03:00 AEDT -> 02:00 AEST at 16:00Z on 4 April: 02:30 AEDT only.
    assert fires("30 2 * * *", "Australia/Sydney", utc(2026, 4, 4, 12), 2) == [
        utc(2026, 4, 4, 15, 30),  # 5 April 02:30 AEDT
        utc(2026, 4, 5, 16, 30),  # 6 April 02:30 AEST
    ]


def test_santiago_midnight_transitions() -> None:
    # 2026-09-06 00:00 -04 -> 01:00 -03 at 04:00Z: midnight does not exist, 01:00 -03 stands in.
    assert next_fire_after("@daily", "America/Santiago", utc(2026, 9, 5, 12)) == utc(2026, 9, 6, 4, 0)
    # 2026-04-05 00:00 -03 -> 23:00 -04 on 4 April at 03:00Z: 23:30 on 4 April happens twice.
    assert fires("30 23 * * *", "America/Santiago", utc(2026, 4, 4, 12), 2) == [
        utc(2026, 4, 5, 2, 30),  # 23:30 -03
        utc(2026, 4, 6, 3, 30),  # 5 April 23:30 -04
    ]


def test_a_whole_skipped_day_collapses_into_one_fire() -> None:
    # Samoa skipped 2011-12-30: 29 December 23:59 -10 was followed by 31 December 00:00 +14 (10:00Z).
    assert fires("0 12 * * *", "Pacific/Apia", utc(2011, 12, 29, 12), 3) == [
        utc(2011, 12, 29, 22, 0),  # 29 December 12:00 -10
        utc(2011, 12, 30, 10, 0),  # 30 December 12:00 never happened: 31 December 00:00 +14
        utc(2011, 12, 30, 22, 0),  # 31 December 12:00 +14
    ]


# --- the latest fire ---------------------------------------------------------------------------


def test_latest_fire_includes_a_slot_exactly_at_the_instant() -> None:
    assert latest_fire_at_or_before("0 9 * * *", "UTC", utc(2026, 1, 5, 9)) == utc(2026, 1, 5, 9)
    assert latest_fire_at_or_before("0 9 * * *", "UTC", utc(2026, 1, 5, 8, 59, 59)) == utc(2026, 1, 4, 9)


def test_latest_fire_during_the_second_pass_is_from_the_first_pass() -> None:
    # 06:40Z is 01:40 EST; 01:45 and 01:59 fired at 05:45Z and 05:59Z, during the first pass.
    assert latest_fire_at_or_before("45 1 * * *", NY, utc(2026, 11, 1, 6, 40)) == utc(2026, 11, 1, 5, 45)
    assert latest_fire_at_or_before("* * * * *", NY, utc(2026, 11, 1, 6, 40)) == utc(2026, 11, 1, 5, 59)


def test_latest_fire_after_a_gap_is_the_collapsed_fire() -> None:
    assert latest_fire_at_or_before("*/15 * * * *", NY, utc(2026, 3, 8, 7, 5)) == utc(2026, 3, 8, 7, 0)
    assert latest_fire_at_or_before("30 2 * * *", NY, utc(2026, 3, 8, 12)) == utc(2026, 3, 8, 7, 0)


# --- plan_tick ---------------------------------------------------------------------------------


def test_catch_up_latest_after_three_days_down_fires_once_for_the_latest_slot() -> None:
    plan = plan_tick("0 9 * * *", BERLIN, "latest", utc(2026, 1, 5, 8), utc(2026, 1, 8, 10))
    assert plan == TickPlan(scheduled_for=utc(2026, 1, 8, 8), next_fire_at=utc(2026, 1, 9, 8))


def test_catch_up_none_after_three_days_down_fires_nothing_and_moves_on() -> None:
    plan = plan_tick("0 9 * * *", BERLIN, "none", utc(2026, 1, 5, 8), utc(2026, 1, 8, 10))
    assert plan == TickPlan(scheduled_for=None, next_fire_at=utc(2026, 1, 9, 8))


@pytest.mark.parametrize("catch_up", ["latest", "none"])
def test_three_seconds_late_fires_the_stored_slot(catch_up: CatchUp) -> None:
    stored = utc(2026, 1, 5, 8)
    plan = plan_tick("0 9 * * *", BERLIN, catch_up, stored, stored + timedelta(seconds=3))
    assert plan == TickPlan(scheduled_for=stored, next_fire_at=utc(2026, 1, 6, 8))


@pytest.mark.parametrize("catch_up", ["latest", "none"])
def test_exactly_on_time_fires_the_stored_slot(catch_up: CatchUp) -> None:
    stored = utc(2026, 1, 5, 10, 1)
    plan = plan_tick("* * * * *", "UTC", catch_up, stored, stored)
    assert plan == TickPlan(scheduled_for=stored, next_fire_at=utc(2026, 1, 5, 10, 2))


def test_a_year_of_every_minute_downtime_is_one_step() -> None:
    plan = plan_tick("* * * * *", "UTC", "latest", utc(2025, 1, 1), utc(2026, 1, 1, 0, 0, 30))
    assert plan == TickPlan(scheduled_for=utc(2026, 1, 1), next_fire_at=utc(2026, 1, 1, 0, 1))
    skipped = plan_tick("* * * * *", NY, "none", utc(2025, 1, 1), utc(2026, 1, 1, 0, 0, 30))
    assert skipped == TickPlan(scheduled_for=None, next_fire_at=utc(2026, 1, 1, 0, 1))


def test_catch_up_across_the_repeated_hour() -> None:
    # Down from 01:00 EDT (05:00Z) to 01:40 EST (06:40Z): the latest fire is 01:30 EDT.
    latest = plan_tick("*/30 * * * *", NY, "latest", utc(2026, 11, 1, 5), utc(2026, 11, 1, 6, 40))
    assert latest == TickPlan(scheduled_for=utc(2026, 11, 1, 5, 30), next_fire_at=utc(2026, 11, 1, 7))
    none = plan_tick("*/30 * * * *", NY, "none", utc(2026, 11, 1, 5), utc(2026, 11, 1, 6, 40))
    assert none == TickPlan(scheduled_for=None, next_fire_at=utc(2026, 11, 1, 7))
    # Only 01:30 EDT was due and it is stored: nothing was missed, even in the second pass.
    late = plan_tick("*/30 * * * *", NY, "none", utc(2026, 11, 1, 5, 30), utc(2026, 11, 1, 6, 40))
    assert late == TickPlan(scheduled_for=utc(2026, 11, 1, 5, 30), next_fire_at=utc(2026, 11, 1, 7))


def test_tick_on_the_collapsed_spring_forward_fire() -> None:
    plan = plan_tick("*/15 * * * *", NY, "none", utc(2026, 3, 8, 7), utc(2026, 3, 8, 7, 0, 3))
    assert plan == TickPlan(scheduled_for=utc(2026, 3, 8, 7), next_fire_at=utc(2026, 3, 8, 7, 15))
    # Down from 01:45 EST across the gap: the gap's slots are one fire, the latest one.
    down = plan_tick("*/15 * * * *", NY, "latest", utc(2026, 3, 8, 6, 45), utc(2026, 3, 8, 7, 5))
    assert down == TickPlan(scheduled_for=utc(2026, 3, 8, 7), next_fire_at=utc(2026, 3, 8, 7, 15))


def test_a_stored_instant_off_the_schedule_stands_for_itself() -> None:
    # The stored instant is not a slot of the cron (e.g. written by an older rule): never fire earlier.
    stored = utc(2026, 1, 5, 10, 0, 20)
    plan = plan_tick("* * * * *", "UTC", "latest", stored, utc(2026, 1, 5, 10, 0, 40))
    assert plan == TickPlan(scheduled_for=stored, next_fire_at=utc(2026, 1, 5, 10, 1))


def test_a_trigger_not_yet_due_fires_nothing() -> None:
    stored = utc(2026, 1, 5, 10, 1)
    plan = plan_tick("* * * * *", "UTC", "latest", stored, utc(2026, 1, 5, 10, 0, 30))
    assert plan == TickPlan(scheduled_for=None, next_fire_at=stored)


# --- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize("cron", ["0 0 30 2 *", "0 0 31 4 *", "0 0 31 2,4,6,9,11 *"])
def test_a_cron_that_never_fires_raises(cron: str) -> None:
    with pytest.raises(ScheduleError, match="no slot within"):
        next_fire_after(cron, "UTC", utc(2026, 1, 1))
    with pytest.raises(ScheduleError, match="no slot within"):
        plan_tick(cron, "UTC", "latest", utc(2026, 1, 1), utc(2026, 1, 2))


@pytest.mark.parametrize("zone", ["Mars/Olympus_Mons", "", "../../etc/passwd", "utc+2", "EST5EDT "])
def test_an_invalid_time_zone_raises(zone: str) -> None:
    with pytest.raises(ScheduleError, match="not an IANA time zone"):
        next_fire_after("* * * * *", zone, utc(2026, 1, 1))


@pytest.mark.parametrize("cron", ["", "every day", "0 0 * * * *", "61 * * * *", "@reboot", "* * *"])
def test_an_invalid_cron_raises(cron: str) -> None:
    with pytest.raises(ScheduleError, match="invalid cron expression"):
        next_fire_after(cron, "UTC", utc(2026, 1, 1))


def test_an_unknown_catch_up_mode_raises() -> None:
    with pytest.raises(ScheduleError, match="catch_up"):
        plan_tick("* * * * *", "UTC", "all", utc(2026, 1, 1), utc(2026, 1, 2))  # type: ignore[arg-type]


def test_schedule_error_is_a_value_error() -> None:
    assert issubclass(ScheduleError, ValueError)


def test_a_naive_instant_is_a_caller_bug() -> None:
    with pytest.raises(ValueError, match="timezone-aware") as raised:
        next_fire_after("* * * * *", "UTC", datetime(2026, 1, 1))
    assert not isinstance(raised.value, ScheduleError)


# --- properties --------------------------------------------------------------------------------

ZONES = [
    "UTC",
    "Asia/Kolkata",
    "Asia/Kathmandu",
    NY,
    BERLIN,
    "Europe/Dublin",  # negative DST in the tz database: winter is the "daylight" offset
    "Australia/Lord_Howe",
    "Australia/Sydney",
    "America/Santiago",
    "Pacific/Chatham",
    "Pacific/Apia",
]

ALL_MINUTES = frozenset(range(60))
ALL_HOURS = frozenset(range(24))
ALL_WEEKDAYS = frozenset(range(7))
MINUTE_FIELDS = [
    ("*", ALL_MINUTES),
    ("0", frozenset({0})),
    ("30", frozenset({30})),
    ("*/15", frozenset({0, 15, 30, 45})),
    ("*/30", frozenset({0, 30})),
    ("5,45", frozenset({5, 45})),
    ("10-20", frozenset(range(10, 21))),
]
HOUR_FIELDS = [
    ("*", ALL_HOURS),
    ("0", frozenset({0})),
    ("1", frozenset({1})),
    ("2", frozenset({2})),
    ("3", frozenset({3})),
    ("1-3", frozenset({1, 2, 3})),
    ("*/2", frozenset(range(0, 24, 2))),
    ("0,12", frozenset({0, 12})),
    ("23", frozenset({23})),
]
WEEKDAY_FIELDS = [  # cron counts Sunday as 0
    ("*", ALL_WEEKDAYS),
    ("0", frozenset({0})),
    ("1-5", frozenset(range(1, 6))),
    ("6", frozenset({6})),
    ("0,6", frozenset({0, 6})),
]


@st.composite
def crons(draw: st.DrawFn) -> tuple[str, tuple[frozenset[int], frozenset[int], frozenset[int]]]:
    """A cron that fires at least weekly, with the sets its fields stand for (for the oracle)."""
    minute, minutes = draw(st.sampled_from(MINUTE_FIELDS))
    hour, hours = draw(st.sampled_from(HOUR_FIELDS))
    weekday, weekdays = draw(st.sampled_from(WEEKDAY_FIELDS))
    return f"{minute} {hour} * * {weekday}", (minutes, hours, weekdays)


# Wider crons for invariants only: days of the month and months, some rarely matching.
any_crons = st.one_of(
    crons().map(lambda pair: pair[0]),
    st.builds(
        "{} {} {} {} {}".format,
        st.sampled_from(["0", "*/15", "30", "59"]),
        st.sampled_from(["*", "0", "2", "1-3", "23"]),
        st.sampled_from(["*", "1", "15", "29", "31"]),
        st.sampled_from(["*", "2", "1-6", "3,10", "11"]),
        st.sampled_from(["*", "0", "1-5"]),
    ).filter(lambda cron: " 31 2 " not in cron and " 31 11 " not in cron),  # 31 February never comes
    st.sampled_from(["@hourly", "@daily", "@weekly", "@monthly", "@yearly"]),
)


@cache
def transitions(zone_name: str) -> tuple[datetime, ...]:
    """Hours in which the zone's offset changed, in years with interesting rules."""
    zone = ZoneInfo(zone_name)
    found: list[datetime] = []
    for year in (2011, 2026):
        hour = utc(year - 1, 12, 1)
        previous = hour.astimezone(zone).utcoffset()
        while hour < utc(year + 1, 2, 1):
            hour += timedelta(hours=1)
            offset = hour.astimezone(zone).utcoffset()
            if offset != previous:
                found.append(hour)
            previous = offset
    return tuple(found) or (utc(2026, 1, 1),)


@st.composite
def zones_and_instants(draw: st.DrawFn) -> tuple[str, datetime]:
    """A zone and an instant, often within a few hours of one of its transitions."""
    zone = draw(st.sampled_from(ZONES))
    near = st.builds(
        lambda base, shift: base + shift,
        st.sampled_from(transitions(zone)),
        st.timedeltas(min_value=timedelta(hours=-4), max_value=timedelta(hours=4)),
    )
    anywhere = st.datetimes(datetime(2000, 1, 1), datetime(2037, 1, 1), timezones=st.just(UTC))
    return zone, draw(st.one_of(near, anywhere))


def oracle_next(
    fields: tuple[frozenset[int], frozenset[int], frozenset[int]], zone_name: str, after: datetime
) -> datetime:
    """The first fire after `after`, by walking UTC minutes: a minute fires if its wall time matches and
    is not the second pass of a repeated time, or if it ends a gap in which some wall time matched."""
    minutes, hours, weekdays = fields
    zone = ZoneInfo(zone_name)

    def matches(wall: datetime) -> bool:
        return wall.minute in minutes and wall.hour in hours and (wall.weekday() + 1) % 7 in weekdays

    instant = after.astimezone(UTC).replace(second=0, microsecond=0) + MINUTE
    previous_offset = (instant - MINUTE).astimezone(zone).utcoffset()
    for _ in range(60 * 24 * 9):
        local = instant.astimezone(zone)
        offset = local.utcoffset()
        assert offset is not None
        assert previous_offset is not None
        repeated = local.fold == 1 and local.replace(fold=0).utcoffset() != offset
        if matches(local) and not repeated:
            return instant
        if offset > previous_offset:  # a gap of wall times ends here
            gap_start = local.replace(tzinfo=None) - (offset - previous_offset)
            gap = (gap_start + MINUTE * i for i in range((offset - previous_offset) // MINUTE))
            if any(matches(wall) for wall in gap):
                return instant
        previous_offset = offset
        instant += MINUTE
    raise AssertionError("the oracle found no fire within nine days")


@settings(max_examples=250, deadline=None)
@given(crons(), zones_and_instants())
def test_next_fires_match_the_brute_force_oracle(
    cron: tuple[str, tuple[frozenset[int], frozenset[int], frozenset[int]]],
    zone_and_instant: tuple[str, datetime],
) -> None:
    expression, fields = cron
    zone, after = zone_and_instant
    for _ in range(3):
        fire = next_fire_after(expression, zone, after)
        assert fire == oracle_next(fields, zone, after)
        after = fire


@settings(max_examples=300, deadline=None)
@given(any_crons, zones_and_instants())
def test_consecutive_fires_strictly_increase(cron: str, zone_and_instant: tuple[str, datetime]) -> None:
    zone, after = zone_and_instant
    for _ in range(6):
        fire = next_fire_after(cron, zone, after)
        assert fire > after  # so no two consecutive fires share a UTC instant
        assert fire.tzinfo is UTC
        # Each fire is the latest fire at its own instant: nothing fires between two consecutive ones.
        assert latest_fire_at_or_before(cron, zone, fire) == fire
        assert latest_fire_at_or_before(cron, zone, fire - timedelta(microseconds=1)) <= after
        after = fire


@settings(max_examples=300, deadline=None)
@given(
    any_crons,
    zones_and_instants(),
    st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=400)),
    st.sampled_from(["latest", "none"]),
)
def test_plan_tick_invariants(
    cron: str, zone_and_instant: tuple[str, datetime], downtime: timedelta, catch_up: CatchUp
) -> None:
    zone, created = zone_and_instant
    stored = first_fire_at(cron, zone, created)
    now = stored + downtime
    plan = plan_tick(cron, zone, catch_up, stored, now)

    assert plan.next_fire_at > now
    assert plan.next_fire_at == next_fire_after(cron, zone, now)
    missed = next_fire_after(cron, zone, stored) <= now
    if catch_up == "none" and missed:
        assert plan.scheduled_for is None
        return
    assert plan.scheduled_for is not None
    assert stored <= plan.scheduled_for <= now
    # The latest fire: itself a fire, with no fire between it and now.
    assert next_fire_after(cron, zone, plan.scheduled_for - timedelta(microseconds=1)) == plan.scheduled_for
    assert next_fire_after(cron, zone, plan.scheduled_for) == plan.next_fire_at
    if catch_up == "none" or not missed:
        assert plan.scheduled_for == stored
