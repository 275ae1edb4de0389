"""Properties that hold for any input: native round trips, literal text, truthiness, filter bounds."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.templating import evaluate_predicate, render_template, render_value
from app.engine.templating.filters import slugify, truncate


def _text(excluded: str = "") -> st.SearchStrategy[str]:
    # Text the engine accepts as output: no NUL, no lone surrogates.
    return st.text(
        st.characters(exclude_categories=["Cs"], exclude_characters="\x00" + excluded), max_size=40
    )


def _json(text: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    return st.recursive(
        st.none()
        | st.booleans()
        | st.integers(min_value=-(2**63), max_value=2**63)
        | st.floats(allow_nan=False, allow_infinity=False)
        | text,
        lambda children: st.lists(children, max_size=5) | st.dictionaries(text, children, max_size=5),
        max_leaves=20,
    )


json_values = _json(_text())
json_values_without_markup = _json(_text(excluded="{"))
SETTINGS = settings(max_examples=60, deadline=None)


@SETTINGS
@given(json_values)
def test_any_json_value_passes_through_a_single_expression_unchanged(value: Any) -> None:
    assert render_value("{{ v }}", {"v": value}) == value
    assert render_value({"wrapped": [" {{ v }} "]}, {"v": value}) == {"wrapped": [value]}


@SETTINGS
@given(json_values)
def test_tojson_output_parses_back_to_the_value(value: Any) -> None:
    assert json.loads(render_template("{{ v|tojson }}", {"v": value})) == value


@SETTINGS
@given(json_values)
def test_predicate_is_the_truthiness_of_the_value(value: Any) -> None:
    assert evaluate_predicate("v", {"v": value}) is bool(value)


@SETTINGS
@given(st.text(st.characters(exclude_categories=["Cs"], exclude_characters="{%#\x00"), max_size=200))
def test_text_without_markup_renders_to_itself(text: str) -> None:
    assert render_template(text, {}) == text
    # Through the sandbox as well; Jinja normalises line endings to "\n", so leave "\r" out there.
    if "\r" not in text:
        assert render_template("{{ '' }}" + text, {}) == text


@SETTINGS
@given(json_values_without_markup)
def test_config_without_templates_comes_back_equal(value: Any) -> None:
    assert render_value({"config": value, "note": "plain"}, {}) == {"config": value, "note": "plain"}


@given(st.text(max_size=100))
def test_slugify_yields_lowercase_ascii_words_joined_by_hyphens(text: str) -> None:
    assert re.fullmatch(r"([a-z0-9]+(-[a-z0-9]+)*)?", slugify(text))


@given(st.text(max_size=100), st.integers(min_value=0, max_value=120), st.booleans(), st.text(max_size=5))
def test_truncate_never_exceeds_the_length(text: str, length: int, killwords: bool, end: str) -> None:
    result = truncate(text, length, killwords, end)
    assert len(result) <= max(length, 0)
    assert result == text or len(text) > length
