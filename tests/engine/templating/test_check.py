"""Save-time checks (`check_template`) and the names a template reads (`referenced_names`)."""

from __future__ import annotations

import time

import pytest

from app.engine.templating import TemplateProblem, TemplateSyntaxError, check_template, referenced_names
from app.engine.templating.evaluator import Evaluator


class TestCheckTemplate:
    @pytest.mark.parametrize(
        "template",
        [
            "plain text",
            "Hello {{ inputs.name|default('you')|upper }}",
            "{% for x in xs|sort %}{{ loop.index }}{% endfor %}",
            "{{ missing_is_fine_at_save_time }}",
            "{{ 10**(10**10) }}",  # refused when rendered, but not a static problem
        ],
    )
    def test_good_templates_have_no_problems(self, template: str) -> None:
        assert check_template(template) == []

    @pytest.mark.parametrize(
        ("template", "code", "line"),
        [
            ("a\n{% for x in %}", "template_syntax", 2),
            ("{{ x }", "template_syntax", 1),
            ("{{ x|capitalize }}", "unknown_filter", 1),
            ("\n\n{% filter wordwrap %}x{% endfilter %}", "unknown_filter", 3),
            ("{% if x %}{{ x|attr('y') }}{% endif %}", "unknown_filter", 1),
            ("{{ x is callable }}", "unknown_test", 1),
            ("{{ x._y }}", "unsafe_access", 1),
            ("{{ x['__class__'] }}", "unsafe_access", 1),
            ("{{ x['\\x5f\\x5fclass\\x5f\\x5f'] }}", "unsafe_access", 1),
            ("{{ self }}", "unsafe_access", 1),
            ("{% include 'other' %}", "unsafe_access", 1),
            ("{% if true %}" * 200 + "{% endif %}" * 200, "template_too_complex", None),
            ("{{ " + "(" * 1000 + " }}", "template_too_complex", None),
        ],
    )
    def test_each_problem_is_reported_with_its_code_and_line(
        self, template: str, code: str, line: int | None
    ) -> None:
        (problem,) = check_template(template)
        assert problem.code == code
        assert problem.line == line
        assert problem.message

    def test_over_long_source_is_reported_without_parsing(self) -> None:
        assert check_template("{{" * 5000) == [
            TemplateProblem("template_too_long", "template source is longer than 8192 bytes", None)
        ]

    def test_all_static_problems_are_reported_together(self) -> None:
        problems = check_template("{{ a|attr('x') }}\n{{ b is callable }}\n{{ c.__class__ }}")
        assert [(problem.code, problem.line) for problem in problems] == [
            ("unknown_filter", 1),
            ("unknown_test", 2),
            ("unsafe_access", 3),
        ]

    def test_predicates_are_checked_as_expressions(self) -> None:
        assert check_template("inputs.count > 3 and inputs.flag", predicate=True) == []
        assert check_template("{{ inputs.count > 3 }}", predicate=True) == []
        assert [p.code for p in check_template("x|nope", predicate=True)] == ["unknown_filter"]
        assert [p.code for p in check_template("{{ a }} {{ b }}", predicate=True)] == ["template_syntax"]
        assert [p.code for p in check_template("plain words", predicate=True)] == ["template_syntax"]

    def test_hostile_templates_are_checked_quickly(self) -> None:
        started = time.monotonic()
        for template in (
            "{% for a in x %}" * 25 + "{% endfor %}" * 25,
            "{{ 'A'*10**9 }}",
            "{{ 10**10**10 }}",
        ):
            check_template(template)
        assert time.monotonic() - started < 3.0


class TestReferencedNames:
    def test_lists_top_level_names_read_from_the_context(self) -> None:
        template = (
            "{{ run.id }} {{ fetch.items[0] }} {% for row in rows %}{{ row.x }}{{ loop.index }}{% endfor %}"
            "{% set local = 1 %}{{ local }}{% macro m(arg) %}{{ arg }}{{ other }}{% endmacro %}"
            "{% if flag %}{{ inside }}{% endif %}"
        )
        assert referenced_names(template) == {"run", "fetch", "rows", "other", "flag", "inside"}

    def test_jinja_globals_are_just_undefined_names(self) -> None:
        assert referenced_names("{{ range(3) }}{{ namespace() }}") == {"range", "namespace"}

    def test_literal_text_reads_nothing(self) -> None:
        assert referenced_names("no markup at all") == set()

    def test_predicates(self) -> None:
        assert referenced_names("fetch.count > inputs.limit", predicate=True) == {"fetch", "inputs"}

    def test_syntax_error_is_raised(self) -> None:
        with pytest.raises(TemplateSyntaxError):
            referenced_names("{% if %}")


def test_compiled_templates_are_cached_by_source() -> None:
    evaluator = Evaluator()
    request = {"op": "render", "sources": ["{{ a }}", "{{ a }}!"], "context": {"a": 1}}
    assert evaluator.handle(request) == {"results": ["1", "1!"]}
    assert evaluator.handle(request | {"context": {"a": 2}}) == {"results": ["2", "2!"]}
    info = evaluator._cached.cache_info()
    assert (info.misses, info.hits) == (2, 2)
