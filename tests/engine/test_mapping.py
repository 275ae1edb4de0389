"""Webhook input mapping: JSONPath selection semantics, refusals with pointers, hostile bodies, caching."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine.mapping import (
    MAX_DESCENT_DEPTH,
    MAX_EXPRESSION_LENGTH,
    MAX_INPUTS,
    MAX_MATCHES,
    CompiledMapping,
    MappingError,
    check_mapping,
    compile_mapping,
)
from app.errors import ValidationFailed

BODY: dict[str, Any] = {
    "repository": {"name": "automations", "owner": {"login": "ada"}},
    "commits": [
        {"id": "c1", "added": ["a.py"], "distinct": True},
        {"id": "c2", "added": [], "distinct": False},
        {"id": "c3", "added": ["b.py", "c.py"], "distinct": True},
    ],
    "odd key": {"a/b": 1, "it's": 2},
    "empty": None,
}


def apply(expression: str, body: Any = BODY) -> dict[str, Any]:
    return compile_mapping({"value": expression}).apply(body)


def problems_of(error: pytest.ExceptionInfo[MappingError]) -> list[tuple[str, str]]:
    return error.value.problems


# --- selection semantics ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("$.repository.name", "automations"),
        ("$.repository.owner.login", "ada"),
        ("$['repository']['name']", "automations"),
        ('$["odd key"]["a/b"]', 1),
        ("$['odd key']['it\\'s']", 2),
        ("$.commits[0].id", "c1"),
        ("$.commits[-1].id", "c3"),
        ("$.empty", None),  # a JSON null is a value that was found, not a missing one
        ("$.repository.owner", {"login": "ada"}),
        ("$", BODY),
    ],
)
def test_singular_expression_yields_the_value(expression: str, expected: Any) -> None:
    assert apply(expression) == {"value": expected}


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("$.commits[*].id", ["c1", "c2", "c3"]),
        ("$.commits[0:2].id", ["c1", "c2"]),
        ("$.commits[0,2].id", ["c1", "c3"]),
        ("$.commits[?@.distinct == true].id", ["c1", "c3"]),
        ("$.commits[?length(@.added) > 1].id", ["c3"]),  # one match is still a list
        ("$.commits[?@.id == 'c2'].added", [[]]),
        ("$..login", ["ada"]),
        ("$.commits[*].added[*]", ["a.py", "b.py", "c.py"]),
    ],
)
def test_multi_value_expression_yields_a_list_in_document_order(expression: str, expected: Any) -> None:
    assert apply(expression) == {"value": expected}


@pytest.mark.parametrize(
    "expression",
    [
        "$.missing",
        "$.repository.missing.deeper",
        "$.commits[7].id",
        "$.repository[0]",  # an index on an object
        "$.repository.name.length",  # a member of a string
        "$.commits[?@.id == 'nope'].id",  # a filter that finds nothing
        "$.nothing[*]",
    ],
)
def test_expression_that_finds_nothing_leaves_the_input_out(expression: str) -> None:
    assert apply(expression) == {}


def test_several_inputs_are_evaluated_independently() -> None:
    mapping = compile_mapping(
        {"repo": "$.repository.name", "ids": "$.commits[*].id", "absent": "$.nope", "first": "$.commits[0]"}
    )
    assert mapping.names == ("repo", "ids", "absent", "first")
    assert mapping.apply(BODY) == {
        "repo": "automations",
        "ids": ["c1", "c2", "c3"],
        "first": BODY["commits"][0],
    }


@pytest.mark.parametrize("body", [None, 3, 2.5, True, [], {}, "text", '{"a": {"b": 1}}'])
def test_scalar_and_empty_bodies_find_only_the_root(body: Any) -> None:
    mapping = compile_mapping({"a": "$.a.b", "all": "$[*]", "root": "$"})
    # A JSON string body is a value; it is never parsed again as JSON text.
    assert mapping.apply(body) == {"root": body}


def test_a_string_has_no_items_for_slices_or_wildcards() -> None:
    # RFC 9535: selectors select nothing from a string (the library alone would slice its characters).
    assert apply("$.s[0:2]", {"s": "xyz"}) == {}
    assert apply("$.s[*]", {"s": "xyz"}) == {}
    assert apply("$..[0:2]", {"s": "xyz", "l": [1, 2, 3]}) == {"value": [1, 2]}


def test_match_and_search_run_on_re2() -> None:
    body = [{"s": "abc"}, {"s": "xabc"}, {"s": "b\ud800"}, {"s": 5}]
    assert apply("$[?match(@.s, 'a.*')].s", body) == {"value": ["abc"]}
    assert apply("$[?search(@.s, 'a.c')].s", body) == {"value": ["abc", "xabc"]}
    # An invalid pattern matches nothing (RFC 9535) rather than failing the request.
    assert apply("$[?search(@.s, '(')].s", body) == {}


def test_patterns_from_the_body_cannot_backtrack() -> None:
    # Under a backtracking engine this search would not finish; RE2 answers in linear time.
    body = {"text": "a" * 64 + "!", "pattern": "^(a+)+$"}
    assert apply("$[?search(@.text, @.pattern)]", [body]) == {}
    assert apply("$[?search(@.text, 'a{3}!')].text", [body]) == {"value": [body["text"]]}


# --- refusals at compile / save time ------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("$.a[", "not a valid JSONPath expression"),
        ("$.a[?@.b ==]", "not a valid JSONPath expression"),
        ("$[?length(@.*) > 1]", "not a valid JSONPath expression"),  # ill-typed function argument
        ("$.a | $.b", "not a valid JSONPath expression"),  # library extensions are off (strict RFC 9535)
        ("$.a.~", "not a valid JSONPath expression"),
        ("$.a ", "not a valid JSONPath expression"),
        ("a.b", "must start with `$`"),
        (" $.a", "must start with `$`"),
        ("", "must not be empty"),
        ("$" + ".a" * (MAX_EXPRESSION_LENGTH // 2), f"at most {MAX_EXPRESSION_LENGTH} characters"),
        ("$..a..b", "descendant segment"),
        ("$..[?@..x]", "descendant segment"),
    ],
)
def test_invalid_expression_is_reported_with_its_pointer(expression: str, message: str) -> None:
    mapping = {"ok": "$.a", "repo": expression}
    problems = check_mapping(mapping)
    assert [path for path, _ in problems] == ["/input_mapping/repo"]
    assert message in problems[0][1]
    with pytest.raises(MappingError) as error:
        compile_mapping(mapping)
    assert problems_of(error) == problems


def test_syntax_error_names_the_character() -> None:
    [(_, message)] = check_mapping({"x": "$.a[?@.b =! 1]"})
    assert re.search(r"at character \d+", message)


def test_descendant_in_a_string_literal_is_not_a_segment() -> None:
    assert check_mapping({"x": "$..a[?@.b == 'x..y']"}) == []


def test_every_problem_is_reported_and_names_are_escaped_in_pointers() -> None:
    mapping: dict[str, Any] = {"a/b": "$.[", "t~": "nope", "fine": "$.x", "n": 5}
    assert [path for path, _ in check_mapping(mapping)] == [
        "/input_mapping/n",
        "/input_mapping/a~1b",
        "/input_mapping/t~0",
    ]


@pytest.mark.parametrize("mapping", [None, [], "$.a", 5])
def test_mapping_must_be_an_object(mapping: Any) -> None:
    assert [path for path, _ in check_mapping(mapping)] == ["/input_mapping"]


def test_at_most_max_inputs() -> None:
    assert check_mapping({f"i{n}": "$.a" for n in range(MAX_INPUTS)}) == []
    problems = check_mapping({f"i{n}": "$.a" for n in range(MAX_INPUTS + 1)})
    assert problems == [("/input_mapping", f"must map at most {MAX_INPUTS} inputs")]


def test_empty_mapping_yields_no_inputs() -> None:
    assert check_mapping({}) == []
    assert compile_mapping({}).apply(BODY) == {}


def test_mapping_error_is_a_422_with_details() -> None:
    with pytest.raises(MappingError) as error:
        compile_mapping({"repo": "nope"})
    assert isinstance(error.value, ValidationFailed)
    assert error.value.status_code == 422
    body = error.value.as_body()["error"]
    assert body["code"] == "input_mapping_invalid"
    assert [detail["path"] for detail in body["details"]] == ["/input_mapping/repo"]


def test_compiled_mappings_are_cached_by_content() -> None:
    first = compile_mapping({"a": "$.a", "b": "$.b[*]"})
    assert compile_mapping({"a": "$.a", "b": "$.b[*]"}) is first
    assert compile_mapping({"a": "$.a", "b": "$.b[0]"}) is not first
    assert isinstance(first, CompiledMapping)


# --- hostile bodies -----------------------------------------------------------------------------


def nested(depth: int, leaf: Any = 1, key: str = "a") -> Any:
    node: Any = leaf
    for _ in range(depth):
        node = {key: node}
    return node


def test_deep_body_with_a_singular_path_is_fine() -> None:
    body = nested(10_000)
    subtree = body
    for _ in range(200):
        subtree = subtree["a"]
    assert apply("$" + ".a" * 200, body)["value"] is subtree  # the body's own object, not a copy


def test_descent_into_a_deep_body_is_refused_with_the_input_pointer() -> None:
    mapping = compile_mapping({"fine": "$.a.a", "deep": "$..x"})
    with pytest.raises(MappingError) as error:
        mapping.apply(nested(MAX_DESCENT_DEPTH + 10))
    assert problems_of(error) == [
        ("/input_mapping/deep", f"the request body nests deeper than {MAX_DESCENT_DEPTH} levels")
    ]
    assert mapping.apply(nested(MAX_DESCENT_DEPTH - 10, leaf={"x": 1})) == {
        "fine": nested(MAX_DESCENT_DEPTH - 12, leaf={"x": 1}),
        "deep": [1],
    }


def test_comparing_absurdly_deep_values_is_refused_not_crashed() -> None:
    body = [{"a": nested(50_000), "b": nested(50_000)}]
    with pytest.raises(MappingError) as error:
        apply("$[?@.a == @.b]", body)
    assert problems_of(error)[0][0] == "/input_mapping/value"


def test_huge_arrays_are_bounded() -> None:
    body = {"items": list(range(1_000_000))}
    mapping = compile_mapping(
        {"one": "$.items[999999]", "few": "$.items[?@ >= 999998]", "edge": f"$.items[:{MAX_MATCHES}]"}
    )
    found = mapping.apply(body)
    assert found["one"] == 999_999
    assert found["few"] == [999_998, 999_999]
    assert len(found["edge"]) == MAX_MATCHES
    for expression in ("$.items[*]", "$..*", f"$.items[:{MAX_MATCHES + 1}]"):
        with pytest.raises(MappingError) as error:
            apply(expression, body)
        assert problems_of(error) == [("/input_mapping/value", f"matched more than {MAX_MATCHES} values")]


class Exploding(Mapping[str, Any]):
    """A body whose reads fail: whatever the evaluator meets must surface as a MappingError."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("boom")

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("boom")

    def __len__(self) -> int:
        return 1


@pytest.mark.parametrize("expression", ["$.a", "$[*]", "$..a", "$[?@.a]"])
def test_evaluation_failures_become_mapping_errors(expression: str) -> None:
    with pytest.raises(MappingError) as error:
        apply(expression, Exploding())
    assert problems_of(error) == [
        ("/input_mapping/value", "could not be evaluated against the request body (RuntimeError)")
    ]


# --- properties ---------------------------------------------------------------------------------

PROPERTY_SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=200)
JSON_SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
# python-jsonpath refuses `\u0000`-`\u001f` escapes that RFC 9535 allows (see the xfail test below), so
# keys hold C0 control characters only where JSON writes a short escape (`\n`, `\t`, ...).
KEY_CHARACTERS = st.characters(min_codepoint=0x20, exclude_categories=["Cs"]) | st.sampled_from("\b\f\n\r\t")
SEGMENTS = st.lists(
    st.text(KEY_CHARACTERS, max_size=12) | st.integers(min_value=0, max_value=5), min_size=1, max_size=6
)


def place(body: Any, segments: list[str | int], value: Any) -> Any:
    """`body` with `value` at the path, replacing whatever stood in the way."""
    if not segments:
        return value
    head, rest = segments[0], segments[1:]
    if isinstance(head, str):
        node = dict(body) if isinstance(body, dict) else {}
        node[head] = place(node.get(head), rest, value)
        return node
    items = list(body) if isinstance(body, list) else []
    items.extend([None] * (head + 1 - len(items)))
    items[head] = place(items[head], rest, value)
    return items


def bracketed(segments: list[str | int]) -> str:
    # A JSON string literal is an RFC 9535 string literal for text without lone surrogates.
    return "$" + "".join(
        f"[{json.dumps(s, ensure_ascii=False) if isinstance(s, str) else s}]" for s in segments
    )


@PROPERTY_SETTINGS
@given(body=JSON_VALUES, segments=SEGMENTS, value=JSON_VALUES)
def test_a_value_placed_at_a_path_is_found_by_its_expression(
    body: Any, segments: list[str | int], value: Any
) -> None:
    document = place(body, segments, value)
    assert compile_mapping({"v": bracketed(segments)}).apply(document) == {"v": value}


@pytest.mark.xfail(
    strict=True, reason="python-jsonpath 2.x refuses \\u0000-\\u001f escapes (RFC 9535 allows)"
)
def test_escaped_control_character_in_a_name() -> None:
    assert apply('$["\\u0001"]', {"\u0001": 1}) == {"value": 1}


SHORTHAND_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)


@PROPERTY_SETTINGS
@given(body=JSON_VALUES, names=st.lists(SHORTHAND_NAMES, min_size=1, max_size=6), value=JSON_VALUES)
def test_dotted_shorthand_finds_the_same_value(body: Any, names: list[str], value: Any) -> None:
    document = place(body, list(names), value)
    assert compile_mapping({"v": "$." + ".".join(names)}).apply(document) == {"v": value}


EXPRESSION_TEXT = st.text(alphabet="$.[]?@*:,'\"()=!<>&|-0123456789abc ~^#_\\", max_size=40)


@PROPERTY_SETTINGS
@given(expression=EXPRESSION_TEXT | EXPRESSION_TEXT.map(lambda text: "$" + text), body=JSON_VALUES)
def test_any_text_is_checked_and_evaluated_without_surprises(expression: str, body: Any) -> None:
    problems = check_mapping({"x": expression})
    assert all(path == "/input_mapping/x" for path, _ in problems)
    if problems:
        with pytest.raises(MappingError):
            compile_mapping({"x": expression})
        return
    mapping = compile_mapping({"x": expression})
    failures: list[MappingError] = []
    try:
        mapping.apply(body)
    except MappingError as error:  # allowed; anything else fails the test
        failures.append(error)
    assert all(path == "/input_mapping/x" for error in failures for path, _ in error.problems)
