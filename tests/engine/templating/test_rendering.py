"""Rendering text, native values and predicates through the sandbox process."""

from __future__ import annotations

import datetime as dt
import pickle
import uuid
from typing import Any

import pytest

from app.engine.templating import (
    TemplateError,
    TemplateLimitError,
    TemplateRuntimeError,
    TemplateSyntaxError,
    TemplateUndefinedError,
    evaluate_predicate,
    render_template,
    render_value,
)
from app.engine.templating import api as templating_api
from app.errors import AppError


class TestRenderTemplate:
    def test_text_without_markup_renders_unchanged(self) -> None:
        assert render_template("Just text, {curly} and 100%\r\n", {}) == "Just text, {curly} and 100%\r\n"

    def test_reads_every_namespace(self, context: dict[str, Any]) -> None:
        template = (
            "{{ run.automation_name }} {{ inputs.channel }} "
            "{{ trigger.payload.user.name }} {{ fetch.entries[0].title }}"
        )
        assert render_template(template, context) == "Daily Digest #news Ada B"

    def test_strings_render_as_themselves(self) -> None:
        assert render_template("{{ s }}", {"s": 'say "hi"'}) == 'say "hi"'

    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            (["a", "b"], '["a", "b"]'),
            ({"k": "v"}, '{"k": "v"}'),
            (True, "true"),
            (False, "false"),
            (None, ""),
            (42, "42"),
            (1.5, "1.5"),
            ([None, True], "[null, true]"),
            ({"é": "ü"}, '{"é": "ü"}'),
        ],
    )
    def test_non_strings_render_as_json(self, value: Any, expected: str) -> None:
        assert render_template("{{ v }}", {"v": value}) == expected

    def test_trailing_newline_is_kept(self) -> None:
        assert render_template("{{ 1 }}\n", {}) == "1\n"

    def test_datetimes_and_uuids_in_the_context_arrive_as_iso_strings(self) -> None:
        moment = dt.datetime(2026, 5, 26, 9, 30, tzinfo=dt.UTC)
        ident = uuid.UUID(int=7)
        rendered = render_template("{{ at }} {{ at|date('%d/%m') }} {{ id }}", {"at": moment, "id": ident})
        assert rendered == f"2026-05-26T09:30:00+00:00 26/05 {ident}"

    @pytest.mark.parametrize("bad", [object(), {1, 2}, float("nan")])
    def test_context_that_is_not_json_data_is_refused(self, bad: Any) -> None:
        with pytest.raises(TemplateRuntimeError) as caught:
            render_template("{{ x }}", {"x": bad})
        assert caught.value.code == "template_invalid_context"

    def test_template_that_is_not_a_string_is_refused(self) -> None:
        with pytest.raises(TemplateSyntaxError):
            render_template(42, {})  # type: ignore[arg-type]

    def test_object_keys_win_over_methods_of_the_same_name(self, context: dict[str, Any]) -> None:
        assert render_template("{{ trigger.payload.items }}", context) == "[1, 2]"

    def test_allowed_methods_can_be_called(self) -> None:
        template = "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}"
        template += "{{ d.get('z', 0) }} {{ s.split(',')|last }}"
        assert render_template(template, {"d": {"a": 1}, "s": "x,y"}) == "a=1;0 y"

    def test_loops_macros_and_callers_work(self) -> None:
        template = (
            "{% macro item(x) %}<{{ x }}{{ caller() }}>{% endmacro %}"
            "{% for x in xs %}{% call item(x) %}{{ loop.cycle('!', '?') }}{% endcall %}{% endfor %}"
        )
        assert render_template(template, {"xs": [1, 2, 3]}) == "<1!><2?><3!>"

    def test_bound_method_objects_are_not_rendered(self) -> None:
        with pytest.raises(TemplateRuntimeError):
            render_template("{{ d.keys }}", {"d": {}})

    def test_division_by_zero_is_a_runtime_error(self) -> None:
        with pytest.raises(TemplateRuntimeError, match="division by zero"):
            render_template("{{ 1 / n }}", {"n": 0})

    def test_adding_text_to_a_number_is_a_runtime_error(self) -> None:
        with pytest.raises(TemplateRuntimeError):
            render_template("{{ 'a' + n }}", {"n": 1})

    def test_syntax_error_names_the_line(self) -> None:
        with pytest.raises(TemplateSyntaxError) as caught:
            render_template("ok\n{% for %}", {})
        assert caught.value.line == 2
        assert caught.value.code == "template_syntax"


class TestStrictUndefined:
    def test_missing_variable_is_refused_with_its_name_and_line(self) -> None:
        with pytest.raises(TemplateUndefinedError, match="'missing' is undefined") as caught:
            render_template("a\nb\n{{ missing }}", {})
        assert caught.value.line == 3
        assert caught.value.code == "template_undefined"

    def test_missing_key_is_refused(self, context: dict[str, Any]) -> None:
        with pytest.raises(TemplateUndefinedError, match="nope"):
            render_template("{{ inputs.nope }}", context)

    def test_missing_value_in_a_condition_is_refused(self) -> None:
        with pytest.raises(TemplateUndefinedError):
            render_template("{% if missing %}x{% endif %}", {})

    def test_defined_test_and_default_filter_handle_missing_values(self, context: dict[str, Any]) -> None:
        template = "{{ inputs.nope is defined }} {{ inputs.nope|default('d') }} {{ missing|default('m') }}"
        assert render_template(template, context) == "false d m"

    def test_calling_a_missing_name_is_an_undefined_error(self) -> None:
        with pytest.raises(TemplateUndefinedError):
            render_template("{{ nothing() }}", {})


class TestRenderValue:
    def test_single_expressions_keep_their_native_type(self, context: dict[str, Any]) -> None:
        config = {
            "tags": "{{ inputs.tags }}",
            "limit": " {{ inputs.limit + 1 }} \n",
            "notify": "{{ inputs.notify }}",
            "note": "{{ inputs.note }}",
            "entries": "{{ fetch.entries }}",
        }
        assert render_value(config, context) == {
            "tags": ["ops", "daily"],
            "limit": 4,
            "notify": True,
            "note": None,
            "entries": context["fetch"]["entries"],
        }

    def test_other_strings_render_to_text(self, context: dict[str, Any]) -> None:
        config = {
            "a": "#{{ inputs.limit }}",
            "b": "{{ inputs.limit }}{{ inputs.limit }}",
            "c": "{% if true %}{{ 1 }}{% endif %}",
        }
        assert render_value(config, context) == {"a": "#3", "b": "33", "c": "1"}

    def test_non_string_leaves_and_keys_are_unchanged(self) -> None:
        config = {"{{ key }}": [1, 2.5, True, None, ("{{ 1 + 1 }}", "x")], "n": {"deep": "{{ 'y' }}"}}
        assert render_value(config, {}) == {"{{ key }}": [1, 2.5, True, None, (2, "x")], "n": {"deep": "y"}}

    def test_scalars_render_too(self) -> None:
        assert render_value("{{ [1] }}", {}) == [1]
        assert render_value(7, {}) == 7

    def test_makes_one_round_trip_whatever_the_number_of_fields(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        calls: list[int] = []
        real = templating_api._request

        def counting(*args: Any, **kwargs: Any) -> list[Any]:
            calls.append(1)
            return real(*args, **kwargs)

        monkeypatch.setattr(templating_api, "_request", counting)
        config = {f"field{i}": f"{{{{ {i} }}}}" for i in range(10)} | {"plain": "no markup"}
        assert render_value(config, {})["field9"] == 9
        assert render_value({"only": "literals", "n": [1]}, {}) == {"only": "literals", "n": [1]}
        assert calls == [1]

    def test_error_names_the_json_pointer_of_the_field(self) -> None:
        with pytest.raises(TemplateUndefinedError) as caught:
            render_value({"blocks": [{"text": "ok"}, {"text": "{{ nope }}"}], "a/b": "x"}, {})
        assert caught.value.pointer == "/blocks/1/text"
        assert "/blocks/1/text" in str(caught.value)
        assert caught.value.details[0].path == "/blocks/1/text"

    def test_over_long_field_is_refused_before_rendering(self) -> None:
        with pytest.raises(TemplateLimitError) as caught:
            render_value({"a~b": ["x" * 9000]}, {})
        assert caught.value.code == "template_too_long"
        assert caught.value.pointer == "/a~0b/0"

    def test_non_json_native_value_is_refused(self) -> None:
        with pytest.raises(TemplateRuntimeError, match="not JSON data"):
            render_value("{{ d.keys }}", {"d": {}})

    def test_non_finite_native_value_is_refused(self) -> None:
        with pytest.raises(TemplateRuntimeError, match="finite"):
            render_value("{{ 1e308 * 10 }}", {})


class TestEvaluatePredicate:
    @pytest.mark.parametrize(
        "expression", ["{{ inputs.limit > 2 }}", "inputs.limit > 2", "  {{ inputs.notify }}\n"]
    )
    def test_accepts_braces_and_bare_expressions(self, expression: str, context: dict[str, Any]) -> None:
        assert evaluate_predicate(expression, context) is True

    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            ([], False),
            ([0], True),
            ("", False),
            ("false", True),
            (0, False),
            (None, False),
            ({}, False),
            (0.5, True),
        ],
    )
    def test_result_is_the_truthiness_of_the_native_value(self, value: Any, expected: bool) -> None:
        assert evaluate_predicate("{{ v }}", {"v": value}) is expected
        assert evaluate_predicate("v", {"v": value}) is expected

    @pytest.mark.parametrize(
        "expression", ["{{ a }} {{ b }}", "x {{ a }}", "{% if a %}1{% endif %}", "a b", "", "{{ }}"]
    )
    def test_anything_but_one_expression_is_a_syntax_error(self, expression: str) -> None:
        with pytest.raises(TemplateSyntaxError):
            evaluate_predicate(expression, {"a": 1, "b": 2})

    def test_undefined_name_is_refused(self) -> None:
        with pytest.raises(TemplateUndefinedError):
            evaluate_predicate("missing", {})


class TestErrors:
    def test_errors_are_app_errors_answered_with_422(self) -> None:
        with pytest.raises(TemplateError) as caught:
            render_template("{{ nope }}", {})
        assert isinstance(caught.value, AppError)
        assert caught.value.status_code == 422

    def test_errors_survive_pickling_with_their_location(self) -> None:
        error = TemplateUndefinedError("'x' is undefined", line=3, pointer="/a")
        copy = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own bytes
        assert type(copy) is TemplateUndefinedError
        assert (copy.message, copy.code, copy.line, copy.pointer) == (
            "'x' is undefined",
            "template_undefined",
            3,
            "/a",
        )
