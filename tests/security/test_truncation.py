"""JSON-aware truncation: within budget, valid JSON, structural markers, `_truncated` exactly when cut."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.security.truncation import MAX_DEPTH, TOO_DEEP, truncate_json


def size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def test_values_within_the_budget_come_back_unchanged() -> None:
    value = {"a": [1, 2.5, None, True, "é"], "b": {"c": ""}}
    assert truncate_json(value) is value
    exact = "x" * 98
    assert size(exact) == 100
    assert truncate_json(exact, 100) == exact


def test_a_long_string_keeps_a_prefix_and_says_how_much_was_cut() -> None:
    result = truncate_json("a" * 5000, 200)
    assert size(result) <= 200
    assert result["_truncated"] is True
    prefix, marker = result["value"].split("…")
    assert prefix == "a" * len(prefix)
    assert marker == f"[+{5000 - len(prefix)} chars]"
    assert len(prefix) > 150


def test_multibyte_strings_are_cut_between_characters() -> None:
    result = truncate_json("日本語" * 1000, 100)
    assert size(result) <= 100
    assert result["value"].startswith("日本語日本語")


def test_a_long_array_keeps_a_prefix_and_a_marker_item() -> None:
    result = truncate_json(list(range(1000)), 100)
    assert size(result) <= 100
    items = result["value"]
    assert items[:-1] == list(range(len(items) - 1))
    assert items[-1] == f"…[+{1000 - (len(items) - 1)} items]"


def test_an_object_keeps_a_prefix_of_keys_a_marker_and_the_flag() -> None:
    value = {f"key{i}": i for i in range(100)}
    result = truncate_json(value, 200)
    assert size(result) <= 200
    kept = [k for k in result if k.startswith("key")]
    assert kept == [f"key{i}" for i in range(len(kept))]
    assert result["…"] == f"[+{100 - len(kept)} keys]"
    assert result["_truncated"] is True


def test_long_strings_are_shortened_before_small_siblings_are_dropped() -> None:
    response = {"status": 200, "headers": {"content-type": "text/html"}, "body": "<p>" * 50_000, "ok": True}
    result = truncate_json(response, 1024)
    assert size(result) <= 1024
    assert (result["status"], result["headers"], result["ok"]) == (200, {"content-type": "text/html"}, True)
    assert re.fullmatch(r"(<p>)+<?p?>?…\[\+\d+ chars\]", result["body"])
    assert size(result) > 1000  # the body got the room the others left


def test_nested_truncation_marks_each_level() -> None:
    value = {"rows": [{"id": i, "tags": ["t"] * 50} for i in range(50)], "total": 50}
    result = truncate_json(value, 300)
    assert size(result) <= 300
    assert result["_truncated"] is True
    assert isinstance(result["rows"], list)
    assert result["rows"][0]["id"] == 0


def test_huge_inputs_finish_quickly() -> None:
    started = time.monotonic()
    assert size(truncate_json(list(range(1_000_000)))) <= 10_240
    assert size(truncate_json({f"k{i}": "v" * 20 for i in range(200_000)})) <= 10_240
    assert size(truncate_json("x" * 5_000_000)) <= 10_240
    assert size(truncate_json(["y" * 1000] * 10_000)) <= 10_240
    assert time.monotonic() - started < 5


def test_nesting_deeper_than_the_limit_is_replaced_without_recursion() -> None:
    deep: list[Any] = []
    innermost = deep
    for _ in range(10_000):
        innermost.append([])
        innermost = innermost[0]
    result = truncate_json(deep)
    assert result["_truncated"] is True
    level, depth = result["value"], 1
    while level and isinstance(level[0], list):
        level, depth = level[0], depth + 1
    assert level == [TOO_DEEP]
    assert depth < MAX_DEPTH
    assert size(result) <= 10_240


def test_non_string_keys_are_written_as_json_writes_them() -> None:
    value = {2: "a" * 500, False: None, None: 1.5}
    result = truncate_json(value, 100)
    assert set(result) <= {"2", "false", "null", "…", "_truncated"}
    assert size(result) <= 100


def test_unrepresentable_values_and_tiny_budgets_are_refused() -> None:
    with pytest.raises(TypeError, match="object"):
        truncate_json({"x": object()})
    with pytest.raises(ValueError, match="at least 64"):
        truncate_json("x", 10)


keys = st.text(max_size=12).filter(lambda key: key != "_truncated")
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=200),
    lambda children: st.lists(children, max_size=30) | st.dictionaries(keys, children, max_size=12),
    max_leaves=120,
)


@settings(max_examples=400, deadline=None)
@given(json_values, st.integers(min_value=64, max_value=2048))
def test_result_fits_is_valid_json_and_is_flagged_exactly_when_cut(value: Any, max_bytes: int) -> None:
    result = truncate_json(value, max_bytes)
    assert size(result) <= max_bytes
    assert json.loads(json.dumps(result, ensure_ascii=False)) == result
    if size(value) <= max_bytes:
        assert result == value
    else:
        assert isinstance(result, dict)
        assert result["_truncated"] is True


@settings(deadline=None)
@given(st.text(min_size=1, max_size=3000), st.integers(min_value=64, max_value=512))
def test_a_shortened_string_is_a_prefix_of_the_original(text: str, max_bytes: int) -> None:
    result = truncate_json(text, max_bytes)
    if size(text) <= max_bytes:
        assert result == text
        return
    prefix, _, marker = result["value"].rpartition("…[+")
    assert text.startswith(prefix)
    assert marker == f"{len(text) - len(prefix)} chars]"
