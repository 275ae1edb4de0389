"""Fixtures for the template engine tests: a typical run context and a pool health check."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.engine.templating import render_template


@pytest.fixture
def context() -> dict[str, Any]:
    """A context shaped like the executor's: run, inputs, trigger and one step output."""
    return {
        "run": {
            "id": "run_1",
            "started_at": "2026-05-26T09:30:00+00:00",
            "automation_id": "aut_1",
            "automation_name": "Daily Digest",
            "automation_version": 3,
            "trigger_type": "schedule",
            "trigger_id": "trg_1",
            "space_id": "spc_1",
            "creator_id": "usr_1",
            "attempt": 1,
        },
        "inputs": {"channel": "#news", "tags": ["ops", "daily"], "limit": 3, "notify": True, "note": None},
        "trigger": {"payload": {"user": {"name": "Ada"}, "items": [1, 2]}},
        "fetch": {"entries": [{"title": "B"}, {"title": "a"}, {"title": "C"}]},
    }


@pytest.fixture
def still_renders() -> Callable[[], None]:
    """Asserts that the default pool answers a normal render (after a child was killed or retired)."""

    def check() -> None:
        assert render_template("{{ 20 + 22 }}", {}) == "42"

    return check
