"""Resource bombs at compile time and at render time: each is refused quickly, and the pool recovers."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from app.engine.templating import (
    TemplateError,
    TemplateLimitError,
    TemplateSecurityError,
    TemplateSyntaxError,
    render_template,
    render_value,
)

# Generous against CI noise; the limits themselves are 100 ms of CPU per render.
QUICK_SECONDS = 3.0
BIG_LIST = list(range(1000))
RECURSIVE_MACRO = "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"
DOUBLING_MACRO = (
    "{% macro d(s, n) %}{% if n %}{{ d(s ~ s, n - 1) }}{% else %}{{ s|length }}{% endif %}{% endmacro %}"
    "{{ d('ab', 40) }}"
)
BRANCHING_MACRO = "{% macro t(n) %}{% if n %}{{ t(n - 1) }}{{ t(n - 1) }}{% endif %}{% endmacro %}{{ t(40) }}"


@pytest.mark.parametrize(
    ("template", "error", "code"),
    [
        pytest.param("{{ 10**(10**10) }}", TemplateLimitError, "template_value_too_large", id="huge-power"),
        pytest.param(
            "{{ 10**n }}", TemplateLimitError, "template_value_too_large", id="huge-power-at-runtime"
        ),
        pytest.param(
            "{{ 'A'*10**9 }}", TemplateLimitError, "template_value_too_large", id="string-repetition"
        ),
        pytest.param("{{ [0]*10**9 }}", TemplateLimitError, "template_value_too_large", id="list-repetition"),
        pytest.param(
            "{{ (2**4000) * (2**4000) }}", TemplateLimitError, "template_value_too_large", id="huge-product"
        ),
        pytest.param(
            "{{ 'x' * 1000 * 1000 * 1000 }}", TemplateLimitError, "template_value_too_large", id="chained"
        ),
        pytest.param("{{ (x*1000)|join }}", TemplateLimitError, None, id="join-of-repeated-list"),
        pytest.param(
            "{% for a in x %}{% for b in x %}{% for c in x %}{{ c }}{% endfor %}{% endfor %}{% endfor %}",
            TemplateLimitError,
            None,
            id="nested-loops",
        ),
        pytest.param(
            "{% for a in x %}{% for b in x %}{% for c in x %}{% endfor %}{% endfor %}{% endfor %}",
            TemplateLimitError,
            "template_timeout",
            id="nested-loops-without-output",
        ),
        pytest.param(RECURSIVE_MACRO, TemplateLimitError, "template_too_complex", id="macro-recursion"),
        pytest.param(BRANCHING_MACRO, TemplateLimitError, "template_timeout", id="macro-fan-out"),
        pytest.param(DOUBLING_MACRO, TemplateLimitError, None, id="string-doubling"),
        pytest.param(
            "{{ " + "(" * 1000 + "1" + ")" * 1000 + " }}",
            TemplateLimitError,
            "template_too_complex",
            id="parens",
        ),
        pytest.param(
            "{{ " + "[" * 1000 + "]" * 1000 + " }}", TemplateLimitError, "template_too_complex", id="brackets"
        ),
        pytest.param(
            "{{ " + "-" * 3000 + "1 }}", TemplateLimitError, "template_too_complex", id="unary-chain"
        ),
        pytest.param(
            "{% if true %}" * 200 + "x" + "{% endif %}" * 200,
            TemplateLimitError,
            "template_too_complex",
            id="nested-if",
        ),
        pytest.param(
            "{% for a in x %}" * 25 + "x" + "{% endfor %}" * 25,
            TemplateLimitError,
            "template_too_complex",
            id="nested-for",
        ),
        pytest.param("{{ " + "1" * 5000 + " }}", TemplateSyntaxError, None, id="huge-integer-literal"),
        pytest.param("x" * 9 * 1024, TemplateLimitError, "template_too_long", id="9kb-source"),
        pytest.param(
            "{{ 'é' * 0 }}" + "é" * 4200, TemplateLimitError, "template_too_long", id="8kb-counted-in-bytes"
        ),
        pytest.param(
            "{% for i in x %}{{ s }}{% endfor %}",
            TemplateLimitError,
            "template_output_too_large",
            id="output",
        ),
        pytest.param(
            "{{ 1.5 ** 1000000 }}", TemplateLimitError, "template_value_too_large", id="float-overflow"
        ),
    ],
)
def test_bomb_is_refused_quickly_and_the_pool_recovers(
    template: str, error: type[TemplateError], code: str | None, still_renders: Callable[[], None]
) -> None:
    started = time.monotonic()
    with pytest.raises(error) as caught:
        render_template(template, {"x": BIG_LIST, "n": 10**9, "s": "y" * 2000})
    assert time.monotonic() - started < QUICK_SECONDS
    if code is not None:
        assert caught.value.code == code
    still_renders()


def test_compile_time_bombs_are_also_refused_as_values_and_predicates(
    still_renders: Callable[[], None],
) -> None:
    for bomb in ("{{ 10**(10**10) }}", "{{ 'A'*10**9 }}"):
        with pytest.raises(TemplateLimitError):
            render_value({"a": bomb}, {})
    with pytest.raises(TemplateLimitError):
        render_template("{% if 10**(10**10) %}{% endif %}", {})
    still_renders()


class TestUnsafeOutput:
    @pytest.mark.parametrize(
        ("template", "context"),
        [
            ("{{ '\\x00' }}", {}),
            ("a{{ s }}", {"s": "nul\x00"}),
            ("{{ '\\ud800' }}", {}),
            ("a{{ s }}", {"s": "lone \udc00"}),
        ],
    )
    def test_nul_bytes_and_lone_surrogates_are_refused(self, template: str, context: dict[str, Any]) -> None:
        with pytest.raises(TemplateSecurityError) as caught:
            render_template(template, context)
        assert caught.value.code == "template_unsafe_output"

    def test_native_values_are_checked_deeply(self) -> None:
        with pytest.raises(TemplateSecurityError):
            render_value("{{ v }}", {"v": {"k": ["ok", "bad\x00"]}})
        with pytest.raises(TemplateSecurityError):
            render_value("{{ v }}", {"v": {"bad\ud800key": 1}})

    def test_literal_strings_are_checked_without_a_round_trip(self) -> None:
        with pytest.raises(TemplateSecurityError):
            render_template("plain \x00", {})
        with pytest.raises(TemplateSecurityError) as caught:
            render_value({"a": ["plain \x00"]}, {})
        assert caught.value.pointer == "/a/0"


class TestSizes:
    def test_context_over_the_limit_is_refused_before_sending(self) -> None:
        with pytest.raises(TemplateLimitError) as caught:
            render_template("{{ 1 }}", {"blob": "z" * (17 * 1024 * 1024)})
        assert caught.value.code == "template_context_too_large"

    def test_native_value_over_the_output_limit_is_refused(self) -> None:
        with pytest.raises(TemplateLimitError) as caught:
            render_value("{{ v }}", {"v": ["y" * 600_000, "y" * 600_000]})
        assert caught.value.code == "template_output_too_large"

    def test_all_fields_of_one_config_share_a_total_output_limit(self) -> None:
        blob = "y" * 1_000_000
        with pytest.raises(TemplateLimitError, match="together"):
            render_value({f"f{i}": "{{ blob }}" for i in range(9)}, {"blob": blob})

    def test_output_just_under_the_limit_renders(self) -> None:
        blob = "y" * (1024 * 1024 - 10)
        assert len(render_template("{{ blob }}", {"blob": blob})) == len(blob)
