"""The sandbox: what the environment holds, and the known ways out of Jinja, all refused."""

from __future__ import annotations

from typing import Any

import pytest
from jinja2 import StrictUndefined
from jinja2.nodes import EvalContext, Impossible

from app.engine.templating import (
    ALLOWED_FILTERS,
    ALLOWED_TESTS,
    TemplateSecurityError,
    TemplateSyntaxError,
    TemplateUndefinedError,
    render_template,
)
from app.engine.templating.sandbox import create_environment


def render(template: str, **context: Any) -> str:
    return render_template(template, context)


class TestEnvironment:
    def test_has_no_globals_the_curated_filters_and_the_safe_tests(self) -> None:
        environment = create_environment()
        assert environment.globals == {}
        assert set(environment.filters) == ALLOWED_FILTERS
        assert len(environment.filters) == 15
        assert set(environment.tests) == ALLOWED_TESTS
        assert {
            *("defined", "undefined", "none", "number", "string"),
            *("mapping", "sequence", "boolean", "true", "false"),
        } == ALLOWED_TESTS

    def test_is_strict_immutable_and_does_not_escape(self) -> None:
        environment = create_environment()
        assert environment.undefined is StrictUndefined
        assert environment.autoescape is False
        assert environment.sandboxed

    def test_filters_and_intercepted_operators_never_run_while_compiling(self) -> None:
        # Jinja folds constant expressions at compile time, where no limit could stop them.
        environment = create_environment()
        eval_ctx = EvalContext(environment)
        expressions = [f"'a'|{name}" for name in ALLOWED_FILTERS] + [
            f"2 {op} 3" for op in ("+", "*", "**", "%")
        ]
        for expression in expressions:
            (node,) = environment.parse(f"{{{{ {expression} }}}}").body[0].nodes
            with pytest.raises(Impossible):
                node.as_const(eval_ctx)

    @pytest.mark.parametrize("name", ["range", "dict", "lipsum", "cycler", "joiner", "namespace"])
    def test_jinja_default_globals_are_absent(self, name: str) -> None:
        with pytest.raises(TemplateUndefinedError, match=f"'{name}' is undefined"):
            render(f"{{{{ {name}() }}}}")

    def test_safe_tests_work(self) -> None:
        template = (
            "{{ 1 is number }} {{ true is number }} {{ x is mapping }} "
            "{{ s is string }} {{ n is none }} {{ xs is sequence }}"
        )
        assert render(template, x={}, s="", n=None, xs=[]) == "true false true true true true"

    @pytest.mark.parametrize("name", ["callable", "sameas", "escaped", "filter", "test", "divisibleby"])
    def test_other_tests_are_unknown(self, name: str) -> None:
        with pytest.raises(TemplateSyntaxError) as caught:
            render(f"{{{{ x is {name} }}}}", x=1)
        assert caught.value.code == "unknown_test"


class TestEscapes:
    @pytest.mark.parametrize(
        "template",
        [
            "{{ ''.__class__.__mro__[1].__subclasses__() }}",
            "{{ x.__class__ }}",
            "{{ x._private }}",
            "{{ x['__class__'] }}",
            "{{ x['\\x5f\\x5fclass\\x5f\\x5f'] }}",
            "{{ x['_' ~ '_class__'] }}",
            "{{ self }}",
            "{{ self._TemplateReference__context }}",
            "{% include 'secrets.txt' %}",
            "{% import 'macros' as m %}",
            "{% from 'macros' import m %}",
            "{% extends 'base' %}",
            "{% block b %}{% endblock %}",
        ],
    )
    def test_private_access_and_other_templates_are_refused_before_rendering(self, template: str) -> None:
        with pytest.raises(TemplateSecurityError) as caught:
            render(template, x={"a": 1})
        assert caught.value.code == "unsafe_access"

    def test_attr_filter_is_not_available(self) -> None:
        with pytest.raises(TemplateSyntaxError) as caught:
            render("{{ x|attr('__class__') }}", x="")
        assert caught.value.code == "unknown_filter"

    @pytest.mark.parametrize(
        "template",
        [
            "{{ '{0.__class__}'.format(x) }}",
            "{{ '{0}'.format(x) }}",
            "{{ '{a}'.format_map(x) }}",
            "{{ s.format(x) }}",
            "{{ s['format'](x) }}",
            "{{ '%s' % x }}",
            "{{ 'x'.center(10**9) }}",
            "{{ 'x'.ljust(10**9) }}",
            "{{ 'x'.zfill(10**9) }}",
            "{{ ','.join(xs) }}",
            "{{ x.update({'b': 2}) }}",
            "{{ x.pop('a') }}",
            "{{ xs.append(1) }}",
            "{{ x.copy() }}",
        ],
    )
    def test_formatting_amplifying_and_mutating_calls_are_refused(self, template: str) -> None:
        with pytest.raises(TemplateSecurityError):
            render(template, x={"a": 1}, xs=["a"], s="{0.__class__}")

    def test_private_names_built_at_run_time_are_refused_by_the_sandbox(self) -> None:
        with pytest.raises(TemplateSecurityError, match="unsafe"):
            render("{% set k = '__cla' ~ 'ss__' %}{{ x[k] }}", x="text")

    def test_data_keys_are_still_readable_by_item_access(self) -> None:
        assert render("{{ x['class'] }} {{ x[k] }}", x={"class": 1, "_k": 2}, k="_k") == "1 2"

    def test_loop_objects_expose_nothing_private(self) -> None:
        with pytest.raises(TemplateSecurityError):
            render("{% for i in xs %}{{ loop._iterator }}{% endfor %}", xs=[1])

    def test_macros_expose_nothing_private(self) -> None:
        with pytest.raises(TemplateSecurityError):
            render("{% macro m() %}{% endmacro %}{{ m._func }}")
