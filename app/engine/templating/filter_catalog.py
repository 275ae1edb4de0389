"""The template filters as data: name, signature and what each does, for editors and documentation.

`python -m app.engine.templating.filter_catalog` prints the list as JSON; the web UI bundles that
output (`ui/src/template_filters.json`), and a test keeps the two the same.
"""

from __future__ import annotations

import inspect
import json
import sys
from typing import Any

from app.engine.templating.filters import _FILTER_FUNCTIONS


def _arguments(func: Any) -> tuple[list[str], list[str]]:
    """The required and the optional arguments of a filter, without the filtered value."""
    parameters = list(inspect.signature(func).parameters.values())[1:]
    required = [p.name for p in parameters if p.default is inspect.Parameter.empty]
    return required, [p.name for p in parameters if p.name not in required]


def _signature(name: str, func: Any) -> str:
    """`name(arg[, optional])`, as docs/templates.md writes it."""
    required, optional = _arguments(func)
    if not required and not optional:
        return name
    text = ", ".join(required)
    if optional:
        text += ("[, " if required else "[") + ", ".join(optional) + "]"
    return f"{name}({text})"


def filter_catalog() -> list[dict[str, Any]]:
    """Every filter a template may use, sorted by name, with its signature and summary."""
    return [
        {
            "name": name,
            "signature": _signature(name, func),
            "required": len(_arguments(func)[0]),
            "summary": (inspect.getdoc(func) or "").split("\n\n")[0].replace("\n", " "),
        }
        for name, func in sorted(_FILTER_FUNCTIONS.items())
    ]


if __name__ == "__main__":
    json.dump(filter_catalog(), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
