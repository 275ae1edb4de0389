"""Static checks on a parsed template: what `check_template` reports and what a render refuses.

The same walk runs at save time and before a template is compiled for rendering, so a template that
passed the save-time check is not refused later for one of these reasons (and one that skipped it
is refused all the same). The sandbox still guards every dynamic access at run time.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, nodes
from jinja2.nodes import EvalContext

from app.engine.templating.errors import UNKNOWN_FILTER, UNKNOWN_TEST, UNSAFE_ACCESS, TemplateProblem

_MAX_PROBLEMS = 50
# Tags that load other templates or rely on template inheritance: there are no other templates.
_UNSUPPORTED_TAGS: dict[type[nodes.Node], str] = {
    nodes.Extends: "extends",
    nodes.Include: "include",
    nodes.Import: "import",
    nodes.FromImport: "from ... import",
    nodes.Block: "block",
}


def _constant(node: nodes.Node, eval_ctx: EvalContext) -> Any:
    """The value of a constant expression, or None. Safe: operators and filters never fold here."""
    if not isinstance(node, nodes.Expr):
        return None
    try:
        return node.as_const(eval_ctx)
    except Exception:  # Impossible, or any failure of a sub-expression: then it is not a constant
        return None


def _problem(node: nodes.Node, environment: Environment, eval_ctx: EvalContext) -> TemplateProblem | None:
    line = getattr(node, "lineno", None)
    if isinstance(node, nodes.Filter) and node.name not in environment.filters:
        allowed = ", ".join(sorted(environment.filters))
        return TemplateProblem(UNKNOWN_FILTER, f"unknown filter {node.name!r}; available: {allowed}", line)
    if isinstance(node, nodes.Test) and node.name not in environment.tests:
        allowed = ", ".join(sorted(environment.tests))
        return TemplateProblem(UNKNOWN_TEST, f"unknown test {node.name!r}; available: {allowed}", line)
    if isinstance(node, nodes.Getattr) and node.attr.startswith("_"):
        return TemplateProblem(UNSAFE_ACCESS, f"access to the private attribute {node.attr!r}", line)
    if isinstance(node, nodes.Getitem):
        key = _constant(node.arg, eval_ctx)
        if isinstance(key, str) and key.startswith("_"):
            return TemplateProblem(UNSAFE_ACCESS, f"access to the private key {key!r}", line)
    if isinstance(node, nodes.Name) and node.name == "self":
        return TemplateProblem(UNSAFE_ACCESS, "'self' is not available in templates", line)
    for tag_type, tag in _UNSUPPORTED_TAGS.items():
        if isinstance(node, tag_type):
            return TemplateProblem(
                UNSAFE_ACCESS, f"the {{% {tag} %}} tag is not available in templates", line
            )
    return None


def find_problems(tree: nodes.Node, environment: Environment) -> list[TemplateProblem]:
    """Every static problem in a parsed template, in source order, without duplicates."""
    eval_ctx = EvalContext(environment)
    found: list[TemplateProblem] = []
    # An explicit stack: the tree can be as deep as the parser allowed, recursion is not needed.
    stack: list[nodes.Node] = [tree]
    while stack and len(found) < _MAX_PROBLEMS:
        node = stack.pop()
        problem = _problem(node, environment, eval_ctx)
        if problem is not None and problem not in found:
            found.append(problem)
        stack.extend(reversed(list(node.iter_child_nodes())))
    found.sort(key=lambda problem: problem.line or 0)
    return found
