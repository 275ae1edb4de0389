"""The filter index: an event visits only the filters that can match, and the answer never changes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine.filters import FilterError, compile_filter
from app.engine.filters.index import FilterIndex, choose_anchor, value_key

PATHS = ["a", "b", "a.b", "a.c", "list.0", "list.1", "n"]
SCALARS = st.sampled_from([0, 1, 1.0, 2, -1.5, True, False, None, "", "x", "xy", "xyz", "y", "1"])


def _condition() -> st.SearchStrategy[Any]:
    operand = st.one_of(
        st.builds(lambda v: {"equals": v}, SCALARS),
        st.builds(lambda v: {"not_equals": v}, SCALARS),
        st.builds(lambda vs: {"in": vs}, st.lists(SCALARS, max_size=4)),
        st.builds(lambda vs: {"not_in": vs}, st.lists(SCALARS, max_size=3)),
        st.builds(lambda p: {"starts_with": p}, st.sampled_from(["", "x", "xy", "y", "1"])),
        st.builds(lambda b: {"exists": b}, st.booleans()),
        st.builds(lambda n: {"gt": n}, st.sampled_from([0, 1, 1.5])),
        st.builds(lambda p, v: {"starts_with": p, "equals": v}, st.sampled_from(["x", ""]), SCALARS),
        st.builds(lambda v: {"exists": True, "in": [v]}, SCALARS),
        st.builds(lambda v: {"exists": False, "equals": v}, SCALARS),
    )
    return st.one_of(SCALARS, operand)


def _document(depth: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    conditions = st.dictionaries(st.sampled_from(PATHS), _condition(), max_size=3)
    if depth == 0:
        return conditions
    child = _document(depth - 1)
    compositions = st.one_of(
        st.builds(lambda docs: {"$and": docs}, st.lists(child, min_size=1, max_size=2)),
        st.builds(lambda docs: {"$or": docs}, st.lists(child, min_size=1, max_size=2)),
        st.builds(lambda doc: {"$not": doc}, child),
    )
    return st.one_of(
        conditions, st.builds(lambda c, extra: {**c, **extra}, conditions, compositions), compositions
    )


def _json(depth: int = 2) -> st.SearchStrategy[Any]:
    if depth == 0:
        return SCALARS
    inner = _json(depth - 1)
    return st.one_of(
        SCALARS,
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "c", "0", "1"]), inner, max_size=3),
    )


PAYLOADS = st.dictionaries(st.sampled_from(["a", "b", "list", "n", "z"]), _json(), max_size=5)


class TestAgainstPlainEvaluation:
    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(_document(), max_size=25), st.lists(PAYLOADS, min_size=1, max_size=8))
    def test_index_fires_exactly_what_evaluating_every_filter_fires(
        self, documents: list[dict[str, Any]], payloads: list[dict[str, Any]]
    ) -> None:
        index = FilterIndex(enumerate(documents))
        predicates = [compile_filter(document) for document in documents]
        for payload in payloads:
            expected = [i for i, predicate in enumerate(predicates) if predicate(payload)]
            assert index.match(payload) == expected, (documents, payload)

    @settings(max_examples=200, deadline=None)
    @given(_document(), PAYLOADS)
    def test_an_anchor_is_necessary_for_a_match(
        self, document: dict[str, Any], payload: dict[str, Any]
    ) -> None:
        index = FilterIndex([("only", document)])
        if compile_filter(document)(payload):
            assert index.candidates(payload) == [0]


class TestNarrowing:
    def test_an_event_visits_only_its_bucket(self) -> None:
        documents = [
            ({"repository": f"acme/repo-{i}", "build.branch": {"starts_with": "main"}}) for i in range(1000)
        ]
        index = FilterIndex(enumerate(documents))
        payload = {"repository": "acme/repo-7", "build": {"branch": "main"}}
        assert index.candidates(payload) == [7]
        assert index.match(payload) == [7]
        assert index.unanchored == 0

    def test_filters_with_no_anchor_are_evaluated_for_every_event(self) -> None:
        index = FilterIndex(
            [("empty", {}), ("none", None), ("or", {"$or": [{"a": 1}, {"b": 2}]}), ("eq", {"a": 3})]
        )
        assert index.unanchored == 3
        assert index.match({"b": 2}) == ["empty", "none", "or"]
        assert index.match({"a": 3}) == ["empty", "none", "eq"]

    def test_equality_keeps_json_semantics(self) -> None:
        index = FilterIndex(
            [
                ("one", {"n": 1}),
                ("true", {"n": True}),
                ("null", {"n": None}),
                ("in", {"n": {"in": [1.0, "1"]}}),
            ]
        )
        assert index.match({"n": 1.0}) == ["one", "in"]
        assert index.match({"n": True}) == ["true"]
        assert index.match({"n": None}) == ["null"]
        assert index.match({"n": "1"}) == ["in"]
        assert index.match({"n": [1]}) == []
        assert index.match({}) == []

    def test_prefix_and_exists_anchors(self) -> None:
        index = FilterIndex(
            [
                ("main", {"ref": {"starts_with": "refs/heads/main"}}),
                ("any", {"ref": {"exists": True}}),
                ("empty", {"ref": {"starts_with": ""}}),
            ]
        )
        assert index.match({"ref": "refs/heads/main-2"}) == ["main", "any", "empty"]
        assert index.match({"ref": "refs/tags/v1"}) == ["any", "empty"]
        assert index.match({"ref": 3}) == ["any"]
        assert index.match({"other": 1}) == []

    def test_the_most_selective_anchor_is_chosen(self) -> None:
        anchor = choose_anchor(
            {"a": {"exists": True}, "b": {"starts_with": "x"}, "$and": [{"c": {"in": [1, 2]}}, {"d": 4}]}
        )
        assert anchor is not None
        assert (anchor.path, anchor.values) == ("d", (4,))

    def test_an_invalid_filter_is_refused_when_indexed(self) -> None:
        with pytest.raises(FilterError):
            FilterIndex([("bad", {"a": {"nope": 1}})])

    def test_value_keys(self) -> None:
        assert value_key(1) == value_key(1.0)
        assert value_key(True) != value_key(1)
        assert value_key([1]) is None
        assert value_key({"a": 1}) is None
