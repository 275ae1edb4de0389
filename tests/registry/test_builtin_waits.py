"""The waiting actions' pure parts: ISO 8601 durations and the save-time check of a wait's config."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.definitions.json_schema import schema_problems
from app.registry import actions
from app.registry.builtin_waits import DEFAULT_MAX_WAIT_SECONDS, parse_duration, wait_config_problems


@pytest.mark.parametrize(
    ("text", "length"),
    [
        ("PT10M", timedelta(minutes=10)),
        ("PT2S", timedelta(seconds=2)),
        ("PT0.5S", timedelta(seconds=0.5)),
        ("P1DT2H", timedelta(days=1, hours=2)),
        ("P2W", timedelta(weeks=2)),
        ("P7D", timedelta(days=7)),
    ],
)
def test_durations_are_read(text: str, length: timedelta) -> None:
    assert parse_duration(text) == length


@pytest.mark.parametrize("text", ["", "P", "PT", "10M", "P1M", "P1Y", "PT-5S", "P1DT", "ten minutes"])
def test_anything_else_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="ISO 8601"):
        parse_duration(text)


def test_a_wait_past_the_maximum_is_refused_at_save_where_it_is_known() -> None:
    assert wait_config_problems("wait", {"for": "P31D"}) == [
        (
            "/for",
            "wait_too_long",
            f"a wait of {31 * 86400} s is longer than the {DEFAULT_MAX_WAIT_SECONDS} s a step may wait",
        )
    ]
    assert wait_config_problems("wait", {"for": "P30D"}) == []
    assert wait_config_problems("wait", {"for": "{{ inputs.length }}"}) == [], (
        "a template is checked at run time"
    )
    assert [p[1] for p in wait_config_problems("wait", {"for": "soon"})] == ["invalid_duration"]
    assert [p[1] for p in wait_config_problems("wait_for_event", {"event_type": "x", "timeout": "P60D"})] == [
        "wait_too_long"
    ]
    now = datetime(2026, 1, 1, tzinfo=UTC)
    far = {"until": "2026-03-01T00:00:00Z"}
    assert [p[:2] for p in wait_config_problems("wait", far, now=now)] == [("/until", "wait_too_long")]
    assert [p[1] for p in wait_config_problems("wait", {"until": "2026-01-02T00:00:00"}, now=now)] == [
        "invalid_datetime"
    ]
    assert wait_config_problems("transform_data", {"for": "P99D"}) == []


def test_the_actions_are_registered_with_their_schemas() -> None:
    for name in ("wait", "wait_for_event", "call_automation"):
        action = actions.get(name)
        assert action is not None
        assert action.duration_class == "fast"
    wait = actions.get("wait")
    assert wait is not None
    assert schema_problems(wait.config_schema, {"for": "PT1M"}) == []
    assert schema_problems(wait.config_schema, {"for": "PT1M", "until": "2026-01-01T00:00:00Z"}) != []
    assert schema_problems(wait.config_schema, {}) != []
