"""The event filter grammar: operators, composition, paths, refusals with pointers, limits, schema."""

from __future__ import annotations

import math
import pathlib
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from app.engine import filters
from app.engine.filters import (
    FILTER_SCHEMA,
    MAX_DEPTH,
    MAX_LIST_ITEMS,
    MAX_NODES,
    MAX_PATH_LENGTH,
    MAX_PATH_SEGMENTS,
    MAX_PATTERN_LENGTH,
    MAX_PROBLEMS,
    MAX_REGEXES,
    MAX_TEXT_LENGTH,
    FilterError,
    check_filter,
    compile_filter,
)

SCHEMA = Draft202012Validator(FILTER_SCHEMA)
MISSING = object()


def matches(document: dict[str, Any], payload: Any) -> bool:
    return compile_filter(document)(payload)


# (operator object or shorthand, value at the path or MISSING, expected)
OPERATOR_CASES = [
    # equals: JSON equality between scalars
    ({"equals": "open"}, "open", True),
    ({"equals": "open"}, "closed", False),
    ({"equals": "open"}, MISSING, False),
    ({"equals": "open"}, 5, False),
    ({"equals": "open"}, ["open"], False),
    ({"equals": 1}, 1, True),
    ({"equals": 1}, 1.0, True),
    ({"equals": 1.5}, 1.5, True),
    ({"equals": 1}, True, False),
    ({"equals": 0}, False, False),
    ({"equals": 1}, "1", False),
    ({"equals": 1}, [1], False),
    ({"equals": True}, True, True),
    ({"equals": True}, 1, False),
    ({"equals": False}, False, True),
    ({"equals": False}, 0, False),
    ({"equals": None}, None, True),
    ({"equals": None}, False, False),
    ({"equals": None}, MISSING, False),
    ("open", "open", True),
    ("open", "closed", False),
    (3, 3.0, True),
    (None, None, True),
    (False, 0, False),
    # not_equals: present and not equal; a value of another type is simply not equal
    ({"not_equals": "open"}, "closed", True),
    ({"not_equals": "open"}, "open", False),
    ({"not_equals": "open"}, MISSING, False),
    ({"not_equals": "open"}, 5, True),
    ({"not_equals": "open"}, None, True),
    ({"not_equals": 1}, 1.0, False),
    ({"not_equals": 1}, True, True),
    # starts_with / ends_with: strings only
    ({"starts_with": "image/"}, "image/png", True),
    ({"starts_with": "image/"}, "text/plain", False),
    ({"starts_with": "image/"}, MISSING, False),
    ({"starts_with": "image/"}, 5, False),
    ({"starts_with": "image/"}, ["image/png"], False),
    ({"ends_with": ".pdf"}, "report.pdf", True),
    ({"ends_with": ".pdf"}, "report.txt", False),
    ({"ends_with": ".pdf"}, MISSING, False),
    ({"ends_with": ".pdf"}, None, False),
    # contains: substring of a string, or an item of an array
    ({"contains": "urgent"}, "very urgent", True),
    ({"contains": "urgent"}, "calm", False),
    ({"contains": "urgent"}, ["urgent", "x"], True),
    ({"contains": "urgent"}, ["very urgent"], False),
    ({"contains": "urgent"}, MISSING, False),
    ({"contains": "urgent"}, 5, False),
    ({"contains": "urgent"}, {"urgent": 1}, False),
    ({"contains": 2}, [1, 2], True),
    ({"contains": 2}, [1.0, 2.0], True),
    ({"contains": 2}, "123", False),
    ({"contains": 1}, [True], False),
    ({"contains": True}, [1], False),
    ({"contains": True}, [False, True], True),
    ({"contains": None}, [None], True),
    ({"contains": None}, [], False),
    # regex: RE2, searched anywhere in a string
    ({"regex": "^ab+c$"}, "abbc", True),
    ({"regex": "^ab+c$"}, "ac", False),
    ({"regex": "b"}, "abc", True),
    ({"regex": "(?i)^INV-\\d+$"}, "inv-42", True),
    ({"regex": "é+"}, "café", True),
    ({"regex": "abc"}, MISSING, False),
    ({"regex": "1"}, 1, False),
    ({"regex": "abc"}, ["abc"], False),
    ({"regex": "abc"}, "\ud800abc", False),
    # ordering: numbers only, booleans are not numbers
    ({"gt": 5}, 6, True),
    ({"gt": 5}, 5, False),
    ({"gt": 5}, 5.5, True),
    ({"gt": 5}, "6", False),
    ({"gt": 0}, True, False),
    ({"gt": 5}, None, False),
    ({"gt": 5}, MISSING, False),
    ({"gt": 5}, 10**400, True),
    ({"gt": 5}, math.nan, False),
    ({"gte": 5}, 5, True),
    ({"gte": 5}, 5.0, True),
    ({"gte": 5}, 4, False),
    ({"gte": 5}, "5", False),
    ({"lt": 5}, 4.99, True),
    ({"lt": 5}, 5, False),
    ({"lt": 5}, MISSING, False),
    ({"lt": 1}, False, False),
    ({"lte": 5}, 5, True),
    ({"lte": 5}, 6, False),
    ({"lte": 5}, [1], False),
    # in / not_in: JSON equality against each item
    ({"in": ["a", 1, True, None]}, "a", True),
    ({"in": ["a", 1, True, None]}, 1, True),
    ({"in": ["a", 1, True, None]}, 1.0, True),
    ({"in": ["a", 1, True, None]}, True, True),
    ({"in": ["a", 1, True, None]}, None, True),
    ({"in": ["a", 1, True, None]}, "b", False),
    ({"in": ["a", 1, True, None]}, False, False),
    ({"in": ["a", 1, True, None]}, [1], False),
    ({"in": ["a", 1, True, None]}, {"a": 1}, False),
    ({"in": ["a", 1, True, None]}, MISSING, False),
    ({"in": [1]}, True, False),
    ({"in": [True]}, 1, False),
    ({"in": []}, "a", False),
    ({"not_in": ["a", 1]}, "b", True),
    ({"not_in": ["a", 1]}, "a", False),
    ({"not_in": ["a", 1]}, 1.0, False),
    ({"not_in": ["a", 1]}, True, True),
    ({"not_in": ["a", 1]}, [1], True),
    ({"not_in": ["a", 1]}, MISSING, False),
    ({"not_in": []}, "a", True),
    # exists: presence, and null is present
    ({"exists": True}, "x", True),
    ({"exists": True}, None, True),
    ({"exists": True}, MISSING, False),
    ({"exists": False}, MISSING, True),
    ({"exists": False}, None, False),
    ({"exists": False}, 0, False),
    # several operators on one path are ANDed
    ({"gt": 1, "lt": 5}, 3, True),
    ({"gt": 1, "lt": 5}, 5, False),
    ({"exists": True, "starts_with": "a"}, "ab", True),
    ({"exists": False, "equals": 1}, MISSING, False),
    ({"exists": False, "equals": 1}, 1, False),
]


@pytest.mark.parametrize(("condition", "value", "expected"), OPERATOR_CASES)
def test_operator(condition: Any, value: Any, expected: bool) -> None:
    payload = {} if value is MISSING else {"field": value}
    assert matches({"field": condition}, payload) is expected


def test_every_operator_is_covered_by_the_cases() -> None:
    used = {name for condition, _, _ in OPERATOR_CASES if isinstance(condition, dict) for name in condition}
    assert used == set(filters.OPERATORS)


class TestPaths:
    @pytest.mark.parametrize(
        ("path", "payload", "expected"),
        [
            ("a.b.c", {"a": {"b": {"c": 1}}}, True),
            ("a.b.c", {"a": {"b": {"c": 2}}}, False),
            ("a.b.c", {"a": {"b": 1}}, False),
            ("a.b.c", {"a": None}, False),
            ("items.0.id", {"items": [{"id": 1}, {"id": 2}]}, True),
            ("items.1.id", {"items": [{"id": 2}, {"id": 1}]}, True),
            ("items.2.id", {"items": [{"id": 1}]}, False),
            ("items.01.id", {"items": [{"id": 0}, {"id": 1}]}, False),
            ("items.-1.id", {"items": [{"id": 1}]}, False),
            ("items.first.id", {"items": [{"id": 1}]}, False),
            ("map.0", {"map": {"0": 1}}, True),
            ("0", [1], True),
            ("0.a", [{"a": 1}], True),
            ("a", None, False),
            ("a", "a", False),
            ("a", [1], False),
        ],
    )
    def test_path_walks_objects_and_indexes_arrays(self, path: str, payload: Any, expected: bool) -> None:
        assert matches({path: {"equals": 1}}, payload) is expected

    def test_keys_with_dots_or_tildes_in_the_payload(self) -> None:
        assert matches({"a~b": 1, "c/d": 2}, {"a~b": 1, "c/d": 2})

    def test_a_path_may_name_dollar_keys_after_its_first_segment(self) -> None:
        assert matches({"doc.$ref": "x"}, {"doc": {"$ref": "x"}})

    def test_exists_false_on_a_non_object_payload(self) -> None:
        assert matches({"a": {"exists": False}}, None)


class TestComposition:
    doc = {"kind": "file", "size": 10, "tags": ["a", "b"], "owner": {"name": "ann"}}

    @pytest.mark.parametrize(
        ("document", "expected"),
        [
            ({}, True),
            ({"kind": "file", "size": {"gt": 5}}, True),
            ({"kind": "file", "size": {"gt": 50}}, False),
            ({"$and": [{"kind": "file"}, {"tags": {"contains": "a"}}]}, True),
            ({"$and": [{"kind": "file"}, {"tags": {"contains": "z"}}]}, False),
            ({"$or": [{"kind": "folder"}, {"tags": {"contains": "b"}}]}, True),
            ({"$or": [{"kind": "folder"}, {"tags": {"contains": "z"}}]}, False),
            ({"$or": [{"kind": "folder"}, {"size": 1}, {"owner.name": "ann"}]}, True),
            ({"$and": [{"kind": "file"}, {"size": 10}, {"owner.name": "bob"}]}, False),
            ({"$not": {"kind": "folder"}}, True),
            ({"$not": {"kind": "file"}}, False),
            ({"$not": {"missing": 1}}, True),
            ({"missing": {"not_equals": 1}}, False),
            ({"$not": {"$not": {"kind": "file"}}}, True),
            ({"kind": "file", "$or": [{"size": 1}, {"size": 10}]}, True),
            ({"kind": "file", "$not": {"owner.name": {"in": ["ann", "bob"]}}}, False),
            (
                {"$and": [{"$or": [{"size": {"lt": 0}}, {"size": {"gte": 10}}]}, {"$not": {"tags": "a"}}]},
                True,
            ),
        ],
    )
    def test_composition(self, document: dict[str, Any], expected: bool) -> None:
        assert matches(document, self.doc) is expected

    def test_empty_document_matches_everything(self) -> None:
        assert matches({}, {})
        assert matches({}, None)


# (document, pointer of the first problem, fragment of its message)
BAD_DOCUMENTS: list[tuple[Any, str, str]] = [
    ([], "", "JSON object"),
    ("x", "", "JSON object"),
    (None, "", "JSON object"),
    ({"a": {"equal": 1}}, "/a/equal", "did you mean 'equals'"),
    ({"a": {"b": 1}}, "/a/b", "unknown operator 'b'"),
    ({"a": {}}, "/a", "at least one operator"),
    ({"a": [1, 2]}, "/a", "for arrays use contains"),
    ({"tags": []}, "/tags", "object of operators or a scalar"),
    ({"a": {"equals": [1]}}, "/a/equals", "must be a string, number, boolean or null"),
    ({"a": {"contains": {"x": 1}}}, "/a/contains", "must be a string, number"),
    ({"a": {"gt": "5"}}, "/a/gt", "must be a number"),
    ({"a": {"lte": True}}, "/a/lte", "booleans are not numbers"),
    ({"a": {"starts_with": 5}}, "/a/starts_with", "must be a string"),
    ({"a": {"ends_with": None}}, "/a/ends_with", "must be a string"),
    ({"a": {"regex": "(a"}}, "/a/regex", "not a valid RE2 pattern"),
    ({"a": {"regex": "(?=a)b"}}, "/a/regex", "not a valid RE2 pattern"),
    ({"a": {"regex": "(a)\\1"}}, "/a/regex", "not a valid RE2 pattern"),
    ({"a": {"regex": 5}}, "/a/regex", "must be a string"),
    ({"a": {"in": "abc"}}, "/a/in", "must be an array"),
    ({"a": {"not_in": [1, {"b": 2}]}}, "/a/not_in/1", "must be a string, number"),
    ({"a": {"exists": "yes"}}, "/a/exists", "true or false"),
    ({"a": {"exists": 1}}, "/a/exists", "true or false"),
    ({"a": {"gt": 1, "lt": "x"}}, "/a/lt", "must be a number"),
    ({"$and": {}}, "/$and", "non-empty array"),
    ({"$and": []}, "/$and", "non-empty array"),
    ({"$or": [1]}, "/$or/0", "JSON object"),
    ({"$not": []}, "/$not", "JSON object"),
    ({"$nor": [{"a": 1}]}, "/$nor", "unknown composition operator"),
    ({"$": 1}, "/$", "unknown composition operator"),
    ({"$and": [{"a": 1}, {"x": {"lt": "a"}}]}, "/$and/1/x/lt", "must be a number"),
    ({"$or": [{"$not": {"a": {"regex": "["}}}]}, "/$or/0/$not/a/regex", "RE2"),
    ({"a..b": 1}, "/a..b", "none of them empty"),
    ({"a.": 1}, "/a.", "none of them empty"),
    ({".a": 1}, "/.a", "none of them empty"),
    ({"": 1}, "/", "none of them empty"),
    ({"a/b": {"gt": "x"}}, "/a~1b/gt", "must be a number"),
    ({"a~b": {"gt": "x"}}, "/a~0b/gt", "must be a number"),
]


class TestRefusals:
    @pytest.mark.parametrize(("document", "pointer", "fragment"), BAD_DOCUMENTS)
    def test_bad_document_raises_with_pointer(self, document: Any, pointer: str, fragment: str) -> None:
        with pytest.raises(FilterError) as caught:
            compile_filter(document)
        assert caught.value.path == pointer
        assert fragment in caught.value.message
        assert check_filter(document)[0] == (pointer, caught.value.message)

    def test_check_filter_reports_every_problem(self) -> None:
        document = {"a": {"equal": 1, "regex": "("}, "$nor": [], "b": {"in": [1, [2], {}]}}
        assert [pointer for pointer, _ in check_filter(document)] == [
            "/a/equal",
            "/a/regex",
            "/$nor",
            "/b/in/1",
            "/b/in/2",
        ]

    def test_error_carries_every_problem(self) -> None:
        with pytest.raises(FilterError) as caught:
            compile_filter({"a": {"gt": "x"}, "b": {"lt": "y"}})
        assert caught.value.problems == (
            ("/a/gt", caught.value.message),
            ("/b/lt", "lt: must be a number (booleans are not numbers)"),
        )
        assert "/a/gt" in str(caught.value)

    def test_check_filter_accepts_valid_documents(self) -> None:
        assert check_filter({"a": 1, "$or": [{"b": {"exists": True}}]}) == []

    def test_non_finite_numbers_are_refused(self) -> None:
        assert check_filter({"a": {"gt": math.inf}}) == [("/a/gt", "gt: must be a finite number")]
        assert check_filter({"a": {"equals": math.nan}})[0][0] == "/a/equals"

    def test_problem_list_is_capped(self) -> None:
        document = {"a": {"in": [[i] for i in range(MAX_PROBLEMS + 50)]}}
        assert len(check_filter(document)) == MAX_PROBLEMS


def nested(levels: int) -> dict[str, Any]:
    document: dict[str, Any] = {"a": 1}
    for _ in range(levels - 1):
        document = {"$not": document}
    return document


class TestLimits:
    def test_depth(self) -> None:
        compile_filter(nested(MAX_DEPTH))
        with pytest.raises(FilterError) as caught:
            compile_filter(nested(MAX_DEPTH + 1))
        assert caught.value.path == "/$not" * MAX_DEPTH
        assert "deeper" in caught.value.message

    def test_depth_counts_and_or_levels(self) -> None:
        document: dict[str, Any] = {"a": 1}
        for level in range(MAX_DEPTH):
            document = {"$and" if level % 2 else "$or": [document]}
        with pytest.raises(FilterError) as caught:
            compile_filter(document)
        assert caught.value.path == "/$and/0/$or/0" * (MAX_DEPTH // 2)

    def test_node_budget(self) -> None:
        # One node for the document, one per condition.
        compile_filter({f"k{i}": 1 for i in range(MAX_NODES - 1)})
        with pytest.raises(FilterError) as caught:
            compile_filter({f"k{i}": 1 for i in range(MAX_NODES)})
        assert caught.value.path == f"/k{MAX_NODES - 1}"
        assert str(MAX_NODES) in caught.value.message

    def test_node_budget_counts_documents_and_operators(self) -> None:
        within = {"$and": [{"a": {"gt": 1, "lt": 9}}] * ((MAX_NODES - 1) // 3)}
        compile_filter(within)
        with pytest.raises(FilterError):
            compile_filter({"$and": [{"a": {"gt": 1, "lt": 9}}] * ((MAX_NODES - 1) // 3 + 1)})

    def test_node_budget_is_reported_once(self) -> None:
        problems = check_filter({f"k{i}": 1 for i in range(MAX_NODES * 2)})
        assert len(problems) == 1

    def test_list_size(self) -> None:
        compile_filter({"a": {"in": list(range(MAX_LIST_ITEMS))}})
        with pytest.raises(FilterError) as caught:
            compile_filter({"a": {"not_in": list(range(MAX_LIST_ITEMS + 1))}})
        assert caught.value.path == "/a/not_in"

    def test_string_of_the_maximum_length_is_accepted(self) -> None:
        compile_filter({"a": {"contains": "x" * MAX_TEXT_LENGTH}})

    @pytest.mark.parametrize(
        ("document", "pointer"),
        [
            ({"a": {"contains": "x" * (MAX_TEXT_LENGTH + 1)}}, "/a/contains"),
            ({"a": "x" * (MAX_TEXT_LENGTH + 1)}, "/a"),
            ({"a": {"in": ["ok", "x" * (MAX_TEXT_LENGTH + 1)]}}, "/a/in/1"),
            ({"a": {"starts_with": "x" * (MAX_TEXT_LENGTH + 1)}}, "/a/starts_with"),
        ],
    )
    def test_string_too_long(self, document: dict[str, Any], pointer: str) -> None:
        with pytest.raises(FilterError) as caught:
            compile_filter(document)
        assert caught.value.path == pointer

    def test_pattern_length(self) -> None:
        compile_filter({"a": {"regex": "a" * MAX_PATTERN_LENGTH}})
        with pytest.raises(FilterError) as caught:
            compile_filter({"a": {"regex": "a" * (MAX_PATTERN_LENGTH + 1)}})
        assert caught.value.path == "/a/regex"

    def test_pattern_too_large_for_its_memory_budget(self) -> None:
        with pytest.raises(FilterError) as caught:
            compile_filter({"a": {"regex": "\\pL{1,500}\\pN{1,500}"}})
        assert caught.value.path == "/a/regex"

    def test_regex_count(self) -> None:
        compile_filter({f"k{i}": {"regex": "a"} for i in range(MAX_REGEXES)})
        with pytest.raises(FilterError) as caught:
            compile_filter({f"k{i}": {"regex": "a"} for i in range(MAX_REGEXES + 1)})
        assert caught.value.path == f"/k{MAX_REGEXES}/regex"

    def test_path_segments(self) -> None:
        path = ".".join(["a"] * MAX_PATH_SEGMENTS)
        assert matches({path: 1}, nested_payload(MAX_PATH_SEGMENTS))
        with pytest.raises(FilterError) as caught:
            compile_filter({path + ".a": 1})
        assert caught.value.path == "/" + path + ".a"

    def test_path_length(self) -> None:
        compile_filter({"a" * MAX_PATH_LENGTH: 1})
        with pytest.raises(FilterError):
            compile_filter({"a" * (MAX_PATH_LENGTH + 1): 1})


def nested_payload(levels: int) -> Any:
    payload: Any = 1
    for _ in range(levels):
        payload = {"a": payload}
    return payload


def test_regex_uses_re2_only() -> None:
    # User patterns must never reach Python's backtracking `re`.
    sources = pathlib.Path(filters.__file__).parent.glob("*.py")
    for source in sources:
        text = source.read_text()
        assert "import re\n" not in text, source.name
        assert "from re " not in text, source.name


def test_regex_is_linear_on_a_catastrophic_pattern() -> None:
    # (a+)+$ backtracks exponentially in `re`; RE2 answers at once.
    assert not matches({"a": {"regex": "(a+)+$"}}, {"a": "a" * 5000 + "!"})


class TestSchema:
    def test_schema_is_valid_draft_2020_12(self) -> None:
        Draft202012Validator.check_schema(FILTER_SCHEMA)
        assert FILTER_SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"

    VALID = [
        {},
        {"status": "open"},
        {"n": 1.5, "flag": True, "nothing": None},
        {"file.mime_type": {"starts_with": "image/"}, "file.size": {"lt": 10_000_000}},
        {"a": {"equals": "x", "not_equals": "y", "contains": 3, "regex": "^a", "ends_with": "z"}},
        {"a": {"gt": 1, "gte": 1, "lt": 2, "lte": 2.5, "in": [1, "a", None, True], "not_in": []}},
        {"a": {"exists": False}},
        {"items.0.id": 1, "doc.$ref": "x"},
        {"$and": [{"a": 1}], "$or": [{"b": 1}, {"c": {"exists": True}}], "$not": {"d": 1}},
        nested(MAX_DEPTH),
        {".".join(["s"] * MAX_PATH_SEGMENTS): 1},
        {"a": {"in": list(range(MAX_LIST_ITEMS))}},
        {"a": "x" * MAX_TEXT_LENGTH},
        {"a": {"regex": "a" * MAX_PATTERN_LENGTH}},
    ]
    INVALID = [document for document, _, fragment in BAD_DOCUMENTS if "RE2" not in fragment] + [
        nested(MAX_DEPTH + 1),
        {".".join(["s"] * (MAX_PATH_SEGMENTS + 1)): 1},
        {"a" * (MAX_PATH_LENGTH + 1): 1},
        {"a": {"in": list(range(MAX_LIST_ITEMS + 1))}},
        {"a": "x" * (MAX_TEXT_LENGTH + 1)},
        {"a": {"regex": "a" * (MAX_PATTERN_LENGTH + 1)}},
    ]
    # What JSON Schema cannot say: the compiler alone refuses these.
    COMPILER_ONLY = [
        {"a": {"regex": "(a"}},
        {"a": {"regex": "(?=a)"}},
        {f"k{i}": 1 for i in range(MAX_NODES)},
        {f"k{i}": {"regex": "a"} for i in range(MAX_REGEXES + 1)},
        {"a": {"gt": math.inf}},
    ]

    @pytest.mark.parametrize("document", VALID)
    def test_schema_and_compiler_accept(self, document: Any) -> None:
        assert check_filter(document) == []
        assert SCHEMA.is_valid(document)

    @pytest.mark.parametrize("document", INVALID)
    def test_schema_and_compiler_refuse(self, document: Any) -> None:
        assert check_filter(document) != []
        assert not SCHEMA.is_valid(document)

    @pytest.mark.parametrize("document", COMPILER_ONLY)
    def test_limits_beyond_json_schema(self, document: Any) -> None:
        assert check_filter(document) != []
        assert SCHEMA.is_valid(document)


# ---- properties ------------------------------------------------------------------------------

SEGMENTS = st.sampled_from(["a", "b", "c", "0", "1"])
PATHS = st.lists(SEGMENTS, min_size=1, max_size=3).map(".".join)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(-3, 3, allow_nan=False)
    | st.sampled_from(["", "a", "b", "ab", "A"])
)
CONDITIONS = st.one_of(
    SCALARS,
    st.dictionaries(st.sampled_from(["equals", "not_equals", "contains"]), SCALARS, min_size=1, max_size=2),
    st.dictionaries(
        st.sampled_from(["starts_with", "ends_with"]), st.sampled_from(["", "a", "b"]), min_size=1, max_size=2
    ),
    st.builds(lambda pattern: {"regex": pattern}, st.sampled_from(["^a", "b$", "(?i)a", "a|b", "", "\\d"])),
    st.dictionaries(
        st.sampled_from(["gt", "gte", "lt", "lte"]),
        st.integers(-3, 3) | st.floats(-3, 3),
        min_size=1,
        max_size=2,
    ),
    st.dictionaries(st.sampled_from(["in", "not_in"]), st.lists(SCALARS, max_size=4), min_size=1, max_size=2),
    st.builds(lambda flag: {"exists": flag}, st.booleans()),
)


@st.composite
def filter_documents(draw: st.DrawFn, levels: int = 4) -> dict[str, Any]:
    """Valid filters up to `levels` deep, kept inside the node and regex budgets: one branch goes deep,
    its siblings stay single conditions."""
    document: dict[str, Any] = draw(st.dictionaries(PATHS, CONDITIONS, max_size=2 if levels == 1 else 1))
    kind = draw(st.sampled_from(["", "$not", "$and", "$or"])) if levels > 1 else ""
    if kind == "$not":
        document[kind] = draw(filter_documents(levels - 1))
    elif kind:
        siblings = st.lists(st.dictionaries(PATHS, CONDITIONS, max_size=1), max_size=1)
        document[kind] = [draw(filter_documents(levels - 1)), *draw(siblings)]
    return document


JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(["a", "ab"])
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(SEGMENTS | st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=20,
)
PAYLOADS = st.dictionaries(SEGMENTS, JSON_VALUES, max_size=4) | JSON_VALUES

PROPERTY_SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY_SETTINGS
@given(document=filter_documents(levels=MAX_DEPTH - 1), payload=PAYLOADS)
def test_not_inverts(document: dict[str, Any], payload: Any) -> None:
    assert matches({"$not": document}, payload) is (not matches(document, payload))


@PROPERTY_SETTINGS
@given(document=filter_documents(levels=MAX_DEPTH - 1), payload=PAYLOADS)
def test_and_or_of_one_filter_is_that_filter(document: dict[str, Any], payload: Any) -> None:
    expected = matches(document, payload)
    assert matches({"$and": [document]}, payload) is expected
    assert matches({"$or": [document]}, payload) is expected


@PROPERTY_SETTINGS
@given(first=filter_documents(), second=filter_documents(), payload=PAYLOADS)
def test_and_or_combine_like_booleans(first: dict[str, Any], second: dict[str, Any], payload: Any) -> None:
    one, two = matches(first, payload), matches(second, payload)
    assert matches({"$and": [first, second]}, payload) is (one and two)
    assert matches({"$or": [first, second]}, payload) is (one or two)


@PROPERTY_SETTINGS
@given(document=filter_documents(), payload=PAYLOADS)
def test_valid_documents_satisfy_the_schema_and_never_raise(document: dict[str, Any], payload: Any) -> None:
    assert SCHEMA.is_valid(document)
    assert compile_filter(document)(payload) in (True, False)


KEY_SEGMENTS = st.text(st.characters(exclude_characters="."), min_size=1, max_size=5).filter(
    lambda key: not key.startswith("$")
)
LEAF_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=MAX_TEXT_LENGTH // 100)
)


def trees(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(children, max_size=3) | st.dictionaries(KEY_SEGMENTS, children, max_size=3)


TREES = st.recursive(LEAF_SCALARS, trees, max_leaves=15)


def leaves(value: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    if isinstance(value, dict):
        return [found for key, child in value.items() for found in leaves(child, (*path, key))]
    if isinstance(value, list):
        return [found for index, child in enumerate(value) for found in leaves(child, (*path, str(index)))]
    return [(path, value)]


@PROPERTY_SETTINGS
@given(payload=st.dictionaries(KEY_SEGMENTS, TREES, min_size=1, max_size=4), data=st.data())
def test_value_at_a_path_matches_the_payload_it_came_from(
    payload: dict[str, Any], data: st.DataObject
) -> None:
    candidates = [(path, leaf) for path, leaf in leaves(payload) if 0 < len(path) <= MAX_PATH_SEGMENTS]
    assume(candidates)  # every leaf may be an empty array or object
    path, leaf = data.draw(st.sampled_from(candidates))
    dotted = ".".join(path)
    assert matches({dotted: {"equals": leaf}}, payload)
    assert matches({dotted: leaf}, payload)
    assert matches({dotted: {"in": [leaf]}, "$not": {dotted: {"not_equals": leaf}}}, payload)
    assert not matches({dotted: {"not_in": [leaf]}}, payload)
    assert matches({dotted: {"exists": True}}, payload)


GARBAGE_KEYS = st.sampled_from(
    ["a", "a.b", "0", "$and", "$or", "$not", "$x", "", "a..b", *filters.OPERATORS, "equal"]
)


def garbage_containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(children, max_size=3) | st.dictionaries(GARBAGE_KEYS, children, max_size=3)


GARBAGE_SCALARS = JSON_SCALARS | st.sampled_from(["(", "^a", "[", "x"])
GARBAGE = st.recursive(GARBAGE_SCALARS, garbage_containers, max_leaves=15)
COMPILER_ONLY_MESSAGES = ("RE2", "finite", "nodes", "regex operators")


@PROPERTY_SETTINGS
@given(document=GARBAGE)
def test_check_and_compile_agree_with_each_other_and_the_schema(document: Any) -> None:
    problems = check_filter(document)
    if problems:
        with pytest.raises(FilterError):
            compile_filter(document)
        if SCHEMA.is_valid(document):
            assert all(any(word in message for word in COMPILER_ONLY_MESSAGES) for _, message in problems)
    else:
        compile_filter(document)
        assert SCHEMA.is_valid(document)


@PROPERTY_SETTINGS
@given(document=filter_documents(), payload=JSON_VALUES)
def test_evaluation_never_raises_on_any_json(document: dict[str, Any], payload: Any) -> None:
    assert compile_filter(document)(payload) in (True, False)
