"""Template checks across a definition: syntax and sandbox rules, and which names each template reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from app.definitions.pointers import join
from app.engine.templating import TemplateError, check_template, referenced_names
from app.engine.validation.problems import Problem

TEMPLATE_MARKERS = ("{{", "{%", "{#")


def is_template(value: Any) -> bool:
    return isinstance(value, str) and any(marker in value for marker in TEMPLATE_MARKERS)


def template_leaves(value: Any, path: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Every string leaf holding template syntax, with its path."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            stack.extend((child, (*where, key)) for key, child in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((child, (*where, index)) for index, child in reversed(list(enumerate(node))))
        elif is_template(node):
            yield where, node


def check_one(source: str, path: tuple[str | int, ...], *, predicate: bool) -> tuple[list[Problem], set[str]]:
    """Problems of one template, and the top-level names it reads (empty when it does not parse)."""
    pointer = join(*path)
    problems = [
        Problem(pointer, found.code, found.message + (f" (line {found.line})" if found.line else ""))
        for found in check_template(source, predicate=predicate)
    ]
    if problems:
        return problems, set()
    try:
        return [], referenced_names(source, predicate=predicate)
    except TemplateError as exc:
        return [Problem(pointer, exc.code, exc.message)], set()
