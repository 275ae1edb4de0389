"""Every filter with normal and hostile input, rendered through the sandbox process."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.templating import (
    ALLOWED_FILTERS,
    TemplateLimitError,
    TemplateRuntimeError,
    TemplateSyntaxError,
    TemplateUndefinedError,
    render_template,
    render_value,
)

BIG = "x" * 600_000  # two of these pass the 1 MB output limit


def render(template: str, **context: Any) -> str:
    return render_template(template, context)


def test_exactly_the_fifteen_audited_filters_exist() -> None:
    assert {
        *("join", "length", "default", "upper", "lower", "truncate", "tojson", "date"),
        *("replace", "trim", "slugify", "first", "last", "sort", "reverse"),
    } == ALLOWED_FILTERS


@pytest.mark.parametrize(
    "name", ["attr", "map", "format", "indent", "center", "wordwrap", "urlize", "safe", "d"]
)
def test_jinja_filters_outside_the_list_are_unknown(name: str) -> None:
    with pytest.raises(TemplateSyntaxError) as caught:
        render(f"{{{{ x|{name} }}}}", x="a")
    assert caught.value.code == "unknown_filter"


class TestJoin:
    def test_joins_items_as_text(self) -> None:
        assert render("{{ xs|join(', ') }}", xs=["a", 1, True, None, [2]]) == "a, 1, true, , [2]"

    def test_joins_object_keys_and_string_characters(self) -> None:
        assert render("{{ d|join }}-{{ 'abc'|join('.') }}", d={"k": 1, "j": 2}) == "kj-a.b.c"

    def test_output_limit_holds_on_huge_lists(self) -> None:
        with pytest.raises(TemplateLimitError) as caught:
            render("{{ xs|join }}", xs=["y" * 1000] * 1100)
        assert caught.value.code == "template_output_too_large"

    def test_separator_must_be_text(self) -> None:
        with pytest.raises(TemplateRuntimeError, match="separator"):
            render("{{ xs|join(1) }}", xs=["a"])

    def test_scalar_input_is_refused(self) -> None:
        with pytest.raises(TemplateRuntimeError, match="join: expected"):
            render("{{ 5|join }}")


class TestLength:
    def test_counts_items_keys_and_characters(self) -> None:
        assert render("{{ xs|length }} {{ d|length }} {{ 'héllo'|length }}", xs=[1, 2], d={"a": 1}) == "2 1 5"

    def test_number_input_is_refused(self) -> None:
        with pytest.raises(TemplateRuntimeError):
            render("{{ 5|length }}")

    def test_undefined_input_is_refused(self) -> None:
        with pytest.raises(TemplateUndefinedError):
            render("{{ nope|length }}")


class TestDefault:
    def test_replaces_undefined_values_only(self) -> None:
        assert (
            render("{{ nope|default('d') }} {{ x|default('d') }} {{ n|default('d') }}", x="", n=None) == "d  "
        )

    def test_boolean_mode_replaces_falsy_values(self) -> None:
        assert render("{{ x|default('d', true) }} {{ n|default('d', true) }}", x="", n=None) == "d d"

    def test_default_value_keeps_its_type(self) -> None:
        assert render_value("{{ nope|default([]) }}", {}) == []


class TestCase:
    def test_upper_and_lower(self) -> None:
        assert (
            render("{{ 'MiXed'|upper }} {{ 'MiXed'|lower }} {{ xs|upper }}", xs=["a"]) == 'MIXED mixed ["A"]'
        )


class TestTruncate:
    def test_cuts_at_a_word_boundary_within_the_length(self) -> None:
        assert render("{{ s|truncate(12) }}", s="hello big wide world") == "hello..."

    def test_killwords_and_custom_end(self) -> None:
        assert render("{{ s|truncate(9, true, '…') }}", s="hello big wide world") == "hello bi…"

    def test_short_text_is_unchanged(self) -> None:
        assert render("{{ 'short'|truncate(5) }}") == "short"

    def test_never_longer_than_the_length_even_with_a_long_end(self) -> None:
        assert render("{{ 'abcdefgh'|truncate(2, end='-----') }}") == "--"

    @pytest.mark.parametrize("length", ["-1", "10**12", "true", "'5'"])
    def test_length_outside_bounds_or_not_an_integer_is_refused(self, length: str) -> None:
        with pytest.raises(TemplateRuntimeError, match="truncate: length"):
            render(f"{{{{ 'abc'|truncate({length}) }}}}")


class TestToJson:
    def test_renders_json(self) -> None:
        assert render("{{ d|tojson }}", d={"a": [1, None, "é"]}) == '{"a": [1, null, "é"]}'

    def test_indents_up_to_eight_spaces(self) -> None:
        assert render("{{ d|tojson(2) }}", d={"a": 1}) == '{\n  "a": 1\n}'

    @pytest.mark.parametrize("indent", ["10**9", "'    '", "-1", "9"])
    def test_other_indents_are_refused(self, indent: str) -> None:
        with pytest.raises(TemplateRuntimeError, match="indent"):
            render(f"{{{{ d|tojson({indent}) }}}}", d={"a": 1})

    def test_output_limit_holds(self) -> None:
        with pytest.raises(TemplateLimitError):
            render("{{ d|tojson }}", d={"a": BIG, "b": BIG})


class TestDate:
    def test_formats_iso_strings_with_a_default_format(self) -> None:
        assert render("{{ t|date }}", t="2026-05-26T09:30:00Z") == "2026-05-26 09:30"

    @pytest.mark.parametrize(
        ("value", "fmt", "expected"),
        [
            ("2026-05-26T09:30:00+02:00", "%d/%m/%Y %H:%M %z", "26/05/2026 09:30 +0200"),
            ("2026-05-06", "%A %-d %B", "Wednesday 6 May"),
            ("2026-05-26 09:30:15.250", "%S.%f %%", "15.250000 %"),
        ],
    )
    def test_custom_formats(self, value: str, fmt: str, expected: str) -> None:
        assert render("{{ t|date(f) }}", t=value, f=fmt) == expected

    @pytest.mark.parametrize("fmt", ["%999999999Y", "%_10d", "%Q", "trailing %", "%" * 201])
    def test_widths_and_unknown_directives_are_refused(self, fmt: str) -> None:
        with pytest.raises(TemplateRuntimeError, match="date: "):
            render("{{ t|date(f) }}", t="2026-05-26", f=fmt)

    @pytest.mark.parametrize("value", ["yesterday", 1716712200, None, "2026-05-26" + " " * 100])
    def test_values_that_are_not_iso_dates_are_refused(self, value: Any) -> None:
        with pytest.raises(TemplateRuntimeError, match="ISO-8601"):
            render("{{ t|date }}", t=value)


class TestReplace:
    def test_replaces_all_or_count_occurrences(self) -> None:
        assert render("{{ 'a-b-c'|replace('-', '+') }} {{ 'a-b-c'|replace('-', '+', 1) }}") == "a+b+c a+b-c"

    def test_empty_old_inserts_between_characters(self) -> None:
        assert render("{{ 'ab'|replace('', '.') }}") == ".a.b."

    def test_amplification_past_the_output_limit_is_refused_before_building(self) -> None:
        with pytest.raises(TemplateLimitError):
            render("{{ s|replace('x', r) }}", s="x" * 2000, r="y" * 1000)

    def test_negative_count_is_refused(self) -> None:
        with pytest.raises(TemplateRuntimeError, match="count"):
            render("{{ 'aaa'|replace('a', 'b', -1) }}")


class TestTrimAndSlugify:
    def test_trim_whitespace_or_characters(self) -> None:
        assert render("[{{ '  a b \n'|trim }}] [{{ '--a--'|trim('-') }}]") == "[a b] [a]"

    @pytest.mark.parametrize(
        ("text", "slug"),
        [
            ("Hello, World!", "hello-world"),
            ("  Crème   Brûlée ", "creme-brulee"),
            ("日本", ""),
            ("a_b.c", "a-b-c"),
        ],
    )
    def test_slugify(self, text: str, slug: str) -> None:
        assert render("{{ s|slugify }}", s=text) == slug

    def test_slugify_refuses_huge_input(self) -> None:
        with pytest.raises(TemplateLimitError):
            render("{{ s|slugify }}", s=BIG * 2)


class TestFirstLast:
    def test_first_and_last_of_lists_strings_and_objects(self) -> None:
        context = {"xs": [1, 2, 3], "d": {"a": 1, "z": 2}}
        template = "{{ xs|first }}{{ xs|last }} {{ 'abc'|first }}{{ 'abc'|last }} {{ d|first }}{{ d|last }}"
        assert render_template(template, context) == "13 ac az"

    def test_empty_input_is_undefined_so_default_applies(self) -> None:
        assert render("{{ xs|first|default('none') }} {{ xs|last|default('none') }}", xs=[]) == "none none"
        with pytest.raises(TemplateUndefinedError, match="empty"):
            render("{{ xs|first }}", xs=[])

    def test_native_value_of_first_keeps_its_type(self) -> None:
        assert render_value("{{ xs|first }}", {"xs": [{"a": 1}]}) == {"a": 1}


class TestSortAndReverse:
    def test_sorts_numbers_and_text_case_insensitively(self) -> None:
        assert render_value("{{ xs|sort }}", {"xs": ["b", "A", "c"]}) == ["A", "b", "c"]
        assert render_value("{{ xs|sort(true) }}", {"xs": [3, 1, 2]}) == [3, 2, 1]

    def test_case_sensitive_sort(self) -> None:
        assert render_value("{{ xs|sort(case_sensitive=true) }}", {"xs": ["b", "A", "a"]}) == ["A", "a", "b"]

    def test_sorts_by_attribute_path_or_index(self, context: dict[str, Any]) -> None:
        titles = render_template("{{ fetch.entries|sort(attribute='title')|join(',', ) }}", context)
        assert titles == '{"title": "a"},{"title": "B"},{"title": "C"}'
        rows = {"rows": [{"u": {"n": 2}}, {"u": {"n": 1}}], "pairs": [[2, "b"], [1, "a"]]}
        assert render_value("{{ rows|sort(attribute='u.n') }}", rows)[0] == {"u": {"n": 1}}
        assert render_value("{{ pairs|sort(attribute=0) }}", rows) == [[1, "a"], [2, "b"]]

    @pytest.mark.parametrize("path", ["'__class__'", "'a._b'", "'a..b'", "'a.b.c.d.e.f.g.h.i'", "[1]"])
    def test_private_or_odd_attribute_paths_are_refused(self, path: str) -> None:
        with pytest.raises(TemplateRuntimeError, match="sort: attribute"):
            render(f"{{{{ xs|sort(attribute={path}) }}}}", xs=[{"a": {"b": 1}}])

    def test_missing_attribute_and_mixed_types_are_refused(self) -> None:
        with pytest.raises(TemplateRuntimeError, match="has no 'x'"):
            render("{{ xs|sort(attribute='x') }}", xs=[{"y": 1}])
        with pytest.raises(TemplateRuntimeError, match="compared"):
            render("{{ xs|sort }}", xs=[1, "a", None])

    def test_reverse_strings_lists_and_object_keys(self) -> None:
        assert (
            render("{{ 'abc'|reverse }} {{ xs|reverse }} {{ d|reverse }}", xs=[1, 2], d={"a": 1, "b": 2})
            == 'cba [2, 1] ["b", "a"]'
        )

    def test_reverse_of_a_number_is_refused(self) -> None:
        with pytest.raises(TemplateRuntimeError):
            render("{{ 12|reverse }}")
