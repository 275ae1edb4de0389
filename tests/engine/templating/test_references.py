"""Config fields made of plain references are answered without the sandbox, exactly as it would."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.templating import (
    TemplateLimitError,
    TemplateRuntimeError,
    TemplateSecurityError,
    TemplateUndefinedError,
    aevaluate_predicate,
    arender_value,
    evaluate_predicate,
    render_value,
)
from app.engine.templating.limits import MAX_OUTPUT_BYTES
from app.engine.templating.references import resolve_predicate, resolve_references

# A sibling no reference can answer: a config holding it goes to the sandbox whole.
SANDBOX_ONLY = "{{ 0 }}"


def _through_the_sandbox(source: str, context: dict[str, Any]) -> Any:
    return render_value({"field": source, "other": SANDBOX_ONLY}, context)["field"]


class TestAnsweredWithoutTheSandbox:
    @pytest.mark.parametrize(
        "source",
        [
            "{{ inputs.tags }}",
            "{{inputs.limit}}",
            "  {{ trigger.payload.user }}\n",
            "{{ inputs.note }}",
            "{{ inputs.notify }}",
            "{{ run.attempt }}",
            "{{ inputs }}",
            "Hi {{ inputs.channel }}",
            "{{ inputs.channel }}{{ inputs.channel }}\n",
            "{{ inputs.limit }} of {{ run.automation_name }} ({{ inputs.notify }}, [{{ inputs.note }}])",
            "} {{ trigger.payload.user.name }} {",
            "  {{ inputs.channel }} and text\n\n",
            "{{ inputs.limit + 1 }}",
            "{{inputs.limit*2}}",
            "Page {{ inputs.limit - 5 }} of {{ run.attempt * 100 }}",
        ],
    )
    def test_a_plain_reference_gives_the_sandbox_answer(self, source: str, context: dict[str, Any]) -> None:
        resolved = resolve_references([source], context)
        assert resolved is not None
        assert resolved == [_through_the_sandbox(source, context)]
        assert render_value({"field": source}, context) == {"field": resolved[0]}

    def test_context_values_arrive_as_the_sandbox_sends_them(self) -> None:
        moment = dt.datetime(2026, 5, 26, 9, 30, tzinfo=dt.UTC)
        context = {"data": {"at": moment, "id": uuid.UUID(int=7), "pair": (1, 2.5)}}
        assert resolve_references(["{{ data }}"], context) == [_through_the_sandbox("{{ data }}", context)]
        assert resolve_references(["{{ data }}"], context) == [
            {"at": "2026-05-26T09:30:00+00:00", "id": str(uuid.UUID(int=7)), "pair": [1, 2.5]}
        ]
        text = "at {{ data.at }} by {{ data.id }}"
        assert resolve_references([text], context) == [_through_the_sandbox(text, context)]

    def test_the_answer_shares_nothing_with_the_context(self, context: dict[str, Any]) -> None:
        rendered = render_value({"tags": "{{ inputs.tags }}"}, context)
        rendered["tags"].append("changed")
        assert context["inputs"]["tags"] == ["ops", "daily"]

    async def test_the_awaitable_call_answers_the_same(self, context: dict[str, Any]) -> None:
        config = {"channel": "{{ inputs.channel }}", "level": "info", "count": 2}
        assert await arender_value(config, context) == {"channel": "#news", "level": "info", "count": 2}


class TestLeftToTheSandbox:
    @pytest.mark.parametrize(
        "source",
        [
            "{{ inputs.limit / 2 }}",
            "{{ inputs.limit * -2 }}",
            "{{ inputs.limit * 2.5 }}",
            "{{ inputs.limit * 02 }}",
            "{{ inputs.limit + 1 + 1 }}",
            "{{ 2 * inputs.limit }}",
            "{{ inputs.notify + 1 }}",
            "{{ inputs.channel * 2 }}",
            "{{ x.ratio * 2 }}",
            "Hi {{ inputs.channel|upper }}",
            "Tags: {{ inputs.tags }}",
            "Object: {{ trigger.payload }}",
            "Float: {{ x.ratio }}",
            "{{{ inputs.channel }}",
            "{{ inputs.channel }}}",
            "Hi {{ inputs.channel }} {% if true %}!{% endif %}",
            "Hi {{ inputs.channel }} {{ missing }}",
            "Hi {{ inputs.channel }}\r\n",
            "{{ inputs.tags|length }}",
            "{{ inputs.tags.0 }}",
            "{{ inputs['channel'] }}",
            "{{- inputs.channel -}}",
            "{{ inputs.__class__ }}",
            "{{ inputs._private }}",
            "{{ inputs.items }}",
            "{{ inputs.channel.upper }}",
            "{{ missing }}",
            "{{ true }}",
            "{{ self }}",
            "{% if true %}{{ inputs.channel }}{% endif %}",
            "{# note #}{{ inputs.channel }}",
            "\r\n{{ inputs.channel }}",
        ],
    )
    def test_anything_but_a_plain_reference_to_json_data(self, source: str, context: dict[str, Any]) -> None:
        assert resolve_references([source], {**context, "x": {"ratio": 0.5}}) is None

    def test_one_field_the_references_cannot_answer_sends_the_whole_config(
        self, context: dict[str, Any]
    ) -> None:
        assert resolve_references(["{{ inputs.channel }}", "{{ inputs.limit // 2 }}"], context) is None
        config = {"channel": "{{ inputs.channel }}", "half": "{{ inputs.limit // 2 }}"}
        assert render_value(config, context) == {"channel": "#news", "half": 1}

    @pytest.mark.parametrize(
        "value", [object(), {1, 2}, float("nan"), "nul \x00", "lone \ud800", {1: "int key"}, 2**5000]
    )
    def test_a_value_that_is_not_plain_json_data(self, value: Any) -> None:
        assert resolve_references(["{{ x }}"], {"x": value}) is None
        assert resolve_references(["{{ x.y }}"], {"x": {"y": [value]}}) is None

    def test_a_value_over_the_output_limit(self) -> None:
        assert resolve_references(["{{ x }}"], {"x": "z" * MAX_OUTPUT_BYTES}) is None
        assert resolve_references(["z{{ x }}"], {"x": "z" * MAX_OUTPUT_BYTES}) is None

    def test_values_over_the_total_output_limit(self) -> None:
        # Each string counts its length and its two quotes, as the sandbox counts it.
        half = "z" * (MAX_OUTPUT_BYTES // 2 - 2)
        assert resolve_references(["{{ x }}"] * 16, {"x": half}) is not None
        assert resolve_references(["{{ x }}"] * 17, {"x": half}) is None
        with pytest.raises(TemplateLimitError):
            render_value({str(index): "{{ x }}" for index in range(17)}, {"x": half})


class TestErrorsStayTheSandboxs:
    def test_a_missing_key_is_undefined(self, context: dict[str, Any]) -> None:
        with pytest.raises(TemplateUndefinedError) as caught:
            render_value({"a": ["{{ inputs.nothing }}"]}, context)
        assert caught.value.pointer == "/a/0"

    def test_a_method_is_not_json_data(self) -> None:
        with pytest.raises(TemplateRuntimeError, match="not JSON data"):
            render_value("{{ d.keys }}", {"d": {}})

    def test_unsafe_text_in_the_context_is_refused(self) -> None:
        with pytest.raises(TemplateSecurityError):
            render_value({"a": "{{ x }}"}, {"x": "nul \x00"})
        with pytest.raises(TemplateSecurityError):
            render_value({"a": "text {{ x }}"}, {"x": "nul \x00"})

    def test_an_oversized_value_is_refused(self) -> None:
        with pytest.raises(TemplateLimitError):
            render_value({"a": "{{ x }}"}, {"x": "z" * MAX_OUTPUT_BYTES})


def _any_text() -> st.SearchStrategy[str]:
    # Any characters, braces and carriage returns included; NUL and lone surrogates too.
    return st.text(st.sampled_from([*"ab {}\n\r\t%#-", "\x00", "\ud800", "é"]), max_size=8)


_references = st.sampled_from(
    [
        *["inputs.a", "inputs.b", "inputs.c", "inputs.missing", "inputs", "a", "true", "inputs.a.b"],
        *["inputs.a * 2", "inputs.b+1", "a - 7", "inputs.c * 0", "inputs.a * 999999999999999999"],
    ]
)
_templates = st.lists(
    st.one_of(_any_text(), _references.map(lambda path: "{{ " + path + " }}")), min_size=1, max_size=5
).map("".join)
# Run contexts are JSON read back from JSONB, which holds no NaN or infinity.
_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    # Around the sandbox's integer size limit, where arithmetic meets its checks.
    st.integers(min_value=2**4030, max_value=2**4100),
    st.floats(allow_nan=False, allow_infinity=False),
    _any_text(),
    st.lists(st.integers()),
)


@settings(max_examples=150, deadline=None)
@given(template=_templates, a=_values, b=_values, c=_values)
def test_an_answer_without_the_sandbox_is_always_the_sandboxs(template: str, a: Any, b: Any, c: Any) -> None:
    context = {"inputs": {"a": a, "b": b, "c": c}, "a": a}
    resolved = resolve_references([template], context)
    if resolved is None:
        return
    assert resolved == [_through_the_sandbox(template, context)]


class TestConditions:
    @pytest.mark.parametrize(
        "expression",
        [
            "inputs.notify",
            "{{ inputs.note }}",
            " inputs.tags\n",
            "{{inputs.limit}}",
            "trigger.payload",
            "inputs",
        ],
    )
    def test_a_plain_reference_has_the_sandboxs_truth(self, expression: str, context: dict[str, Any]) -> None:
        path = expression.strip().removeprefix("{{").removesuffix("}}").strip()
        assert resolve_predicate(expression, context) is evaluate_predicate(f"not not {path}", context)

    @pytest.mark.parametrize(
        "value", [None, False, 0, 0.0, "", [], {}, True, 1, -0.5, "false", [0], {"k": None}]
    )
    async def test_truth_follows_the_documented_rules(self, value: Any) -> None:
        expected = value not in (None, False, 0, "", [], {})
        assert resolve_predicate("x.v", {"x": {"v": value}}) is expected
        assert await aevaluate_predicate("{{ x.v }}", {"x": {"v": value}}) is expected

    @pytest.mark.parametrize(
        "expression",
        [
            "inputs.limit > 1",
            "not inputs.notify",
            "inputs.tags|length",
            "{{ inputs.notify }} and more",
            "inputs.missing",
            "true",
            "none",
            "inputs._secret",
            "inputs['notify']",
            "{{- inputs.notify }}",
        ],
    )
    def test_anything_else_goes_to_the_sandbox(self, expression: str, context: dict[str, Any]) -> None:
        assert resolve_predicate(expression, context) is None

    def test_a_value_that_is_not_json_data_goes_to_the_sandbox(self) -> None:
        assert resolve_predicate("x", {"x": object()}) is None
        with pytest.raises(TemplateRuntimeError):
            evaluate_predicate("x", {"x": object()})

    def test_errors_stay_the_sandboxs(self, context: dict[str, Any]) -> None:
        with pytest.raises(TemplateUndefinedError):
            evaluate_predicate("inputs.missing", context)
