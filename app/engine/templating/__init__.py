"""The template engine: sandboxed Jinja templates for step configs, prompts and `when` predicates.

User templates are parsed, compiled and rendered in separate sandbox processes with CPU, memory,
size and time limits (see `pool.py` and `child.py`); this package's functions are the only way in.
A config field that is one plain reference (`{{ a.b }}`) only reads keys of JSON data, so it is
answered in the caller's process (`references.py`) with the sandbox's answer.
Contexts are JSON data. The user documentation of the language is `docs/templates.md`.
"""

from typing import TYPE_CHECKING, Any

from app.engine.templating.api import (
    RUN_FIELDS,
    aevaluate_predicate,
    arender_value,
    check_template,
    evaluate_predicate,
    referenced_names,
    render_template,
    render_value,
)
from app.engine.templating.errors import (
    TemplateError,
    TemplateLimitError,
    TemplateProblem,
    TemplateRuntimeError,
    TemplateSecurityError,
    TemplateSyntaxError,
    TemplateUndefinedError,
)

if TYPE_CHECKING:
    from app.engine.templating.filters import ALLOWED_FILTERS, ALLOWED_TESTS

__all__ = [
    "ALLOWED_FILTERS",
    "ALLOWED_TESTS",
    "RUN_FIELDS",
    "TemplateError",
    "TemplateLimitError",
    "TemplateProblem",
    "TemplateRuntimeError",
    "TemplateSecurityError",
    "TemplateSyntaxError",
    "TemplateUndefinedError",
    "aevaluate_predicate",
    "arender_value",
    "check_template",
    "evaluate_predicate",
    "referenced_names",
    "render_template",
    "render_value",
]


def __getattr__(name: str) -> Any:
    # The filter tables are Jinja objects: Jinja loads only where templates are checked or rendered
    # (the sandbox processes, the authoring prompts), never in a process that just validates shapes.
    if name in {"ALLOWED_FILTERS", "ALLOWED_TESTS"}:
        from app.engine.templating import filters

        return getattr(filters, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
