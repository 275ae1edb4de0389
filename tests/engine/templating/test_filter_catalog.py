"""The filter list the web UI bundles: every filter a template may use, with the signature the docs
write, and the same as the file in ui/src/ (which is regenerated, not edited)."""

from __future__ import annotations

import json
from pathlib import Path

from app.engine.templating.filter_catalog import filter_catalog
from app.engine.templating.filters import ALLOWED_FILTERS

BUNDLED = Path(__file__).resolve().parents[3] / "ui" / "src" / "template_filters.json"


def test_every_allowed_filter_is_listed_once_with_a_summary() -> None:
    listed = [entry["name"] for entry in filter_catalog()]
    assert sorted(listed) == sorted(ALLOWED_FILTERS)
    assert all(entry["summary"] for entry in filter_catalog())


def test_signatures_leave_out_the_filtered_value_and_bracket_optional_arguments() -> None:
    by_name = {entry["name"]: entry for entry in filter_catalog()}
    assert by_name["replace"]["signature"] == "replace(old, new[, count])"
    assert by_name["replace"]["required"] == 2
    assert by_name["join"]["signature"] == "join([separator])"
    assert by_name["join"]["required"] == 0
    assert by_name["upper"]["signature"] == "upper"


def test_the_ui_bundles_the_current_list() -> None:
    bundled = json.loads(BUNDLED.read_text(encoding="utf-8"))
    assert bundled == filter_catalog(), (
        "regenerate: python -m app.engine.templating.filter_catalog > ui/src/template_filters.json"
    )
