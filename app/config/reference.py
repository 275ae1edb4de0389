"""The settings reference, docs/settings.md, written from the settings model so it cannot drift from it.

`python -m app.config.reference` writes the page; `--check` exits 1 when the committed page differs
from what the model says (`make settings-docs` regenerates it, the test suite runs the check).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from annotated_types import Ge, Gt, Le, Lt, MaxLen
from pydantic import AliasChoices, BaseModel, SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from app.config import Settings

DEFAULT_PAGE = Path("docs/settings.md")
ENV_PREFIX = "AUTOMATIONS_"
CORE_TITLE = "Core: environment, data folder, database and broker"

_INTRO = """\
# Settings

<!-- Generated from app/config/ by `python -m app.config.reference` (make settings-docs): edit the
     field descriptions there, not this page. -->

Every process (`automations api`, `worker`, `beat`, `dev` and the other commands) reads the same
settings from its environment, so one set of variables configures a whole installation. Names carry the
`AUTOMATIONS_` prefix, except the few that also answer to a conventional name (`DATABASE_URL`,
`REDIS_URL`, `DATABASE_DIRECT_URL`, `PORT`). Lists and objects are written as JSON
(`AUTOMATIONS_LLM_ALLOWED_MODELS='["openai/gpt-4o-mini"]'`). A value outside its range, or a combination
that cannot work (a default above its maximum, a transaction pooler without a direct URL, a weak secret
key outside development), stops the process at start with a message naming the variable.

When `DATABASE_URL` / `REDIS_URL` are unset, the settings read the URLs of the embedded servers that
`automations dev` (`make run`) wrote to `$AUTOMATIONS_HOME/stack.json`, so every command reaches the
stack `make run` started.

Each section below is one group of the settings model; the [other variables](#other-variables) a process
reads come at the end.
"""

# Variables read outside the settings model: (name, default, meaning).
OTHER_VARIABLES = (
    (
        "`PROMETHEUS_MULTIPROC_DIR`",
        "`$AUTOMATIONS_HOME/metrics`",
        "folder where every process of the host writes its metrics for `/metrics` to sum"
        " ([metrics.md](metrics.md))",
    ),
    ("`AUTOMATIONS_LOG_LEVEL`", "`INFO`", "log level of the CLI's processes"),
    (
        "`AUTOMATIONS_FLOWER_BASIC_AUTH`",
        "empty",
        "`docker-compose.yml` only: `user:password` of the Flower dashboard on 127.0.0.1:5555",
    ),
    (
        "`AUTOMATIONS_TEST_SERVERS`",
        "unset",
        "the test suite only: `embedded` forces embedded PostgreSQL and Redis"
        " ([development.md](development.md))",
    ),
    (
        "provider keys (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, …,"
        " or the variable a model's `api_key_env` names)",
        "unset",
        "LLM provider credentials, never stored by the service ([llm.md](llm.md))",
    ),
    (
        "`AWS_*`",
        "unset",
        "credentials and region of the S3-compatible artifact store ([artifacts.md](artifacts.md))",
    ),
)

_TYPE_NAMES: dict[Any, str] = {
    int: "integer",
    float: "number",
    str: "string",
    bool: "boolean",
    Path: "path",
    SecretStr: "secret",
}


class MissingDescriptionError(ValueError):
    """A setting without a description: the reference would have a blank meaning."""


def env_names(name: str, field: FieldInfo) -> list[str]:
    """The environment variables a field is read from, the preferred spelling first."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return [choice for choice in alias.choices if isinstance(choice, str)]
    return [f"{ENV_PREFIX}{name.upper()}"]


def _type_name(annotation: Any) -> str:
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is Literal:
        return " / ".join(f"`{arg}`" for arg in args)
    if origin in (Union, types.UnionType):
        present = [arg for arg in args if arg is not type(None)]
        return " or ".join(_type_name(arg) for arg in present)
    if origin is list:
        return "JSON list"
    if origin is dict:
        return "JSON object"
    return _TYPE_NAMES.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _bounds(field: FieldInfo) -> str:
    parts = []
    for item in field.metadata:
        if isinstance(item, Ge):
            parts.append(f"≥ {_number(item.ge)}")  # type: ignore[arg-type]
        elif isinstance(item, Gt):
            parts.append(f"> {_number(item.gt)}")  # type: ignore[arg-type]
        elif isinstance(item, Le):
            parts.append(f"≤ {_number(item.le)}")  # type: ignore[arg-type]
        elif isinstance(item, Lt):
            parts.append(f"< {_number(item.lt)}")  # type: ignore[arg-type]
        elif isinstance(item, MaxLen):
            parts.append(f"at most {item.max_length} characters")
    return ", ".join(parts)


def type_text(field: FieldInfo) -> str:
    """The field's type as a reader writes it, with its bounds."""
    bounds = _bounds(field)
    name = _type_name(field.annotation)
    return f"{name}, {bounds}" if bounds else name


def _size(value: int) -> str:
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if value >= size and value % size == 0:
            return f" ({value // size} {unit})"
    return ""


def default_text(name: str, field: FieldInfo) -> str:
    """The default as it would be written in the environment; `unset` and `empty` spelt out."""
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "unset"
    if value == "":
        return "empty"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, list | dict):
        return f"`{json.dumps(value)}`"
    if isinstance(value, float):
        return f"`{_number(value)}`"
    if isinstance(value, int):
        return f"`{value}`" + (_size(value) if name.endswith("_bytes") else "")
    return f"`{value}`"


# An environment variable named in a description (AUTOMATIONS_SECRET_KEY), not already in code.
_VARIABLE = re.compile(r"(?<![`\w$])([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])(?![`\w])")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _meaning(description: str) -> str:
    return _VARIABLE.sub(r"`\1`", description)


def _section_title(section: type[BaseModel]) -> str:
    doc = (section.__doc__ or section.__name__).strip()
    return doc.split("\n\n")[0].split(". ")[0].rstrip(".").replace("\n", " ")


def sections(model: type[Settings] = Settings) -> list[tuple[str, dict[str, FieldInfo]]]:
    """The settings grouped as the model groups them: the core fields, then one section mixin each."""
    mixins = [base for base in Settings.__bases__ if base is not BaseSettings and issubclass(base, BaseModel)]
    in_mixins = {name for mixin in mixins for name in mixin.model_fields}
    core = {name: field for name, field in model.model_fields.items() if name not in in_mixins}
    groups = [(CORE_TITLE, core)]
    groups += [(_section_title(mixin), dict(mixin.model_fields)) for mixin in mixins]
    return groups


def render(model: type[Settings] = Settings) -> str:
    """docs/settings.md as the settings model describes it."""
    lines = [_INTRO]
    for title, fields in sections(model):
        lines += [f"## {title}", "", "| variable | type | default | meaning |", "|---|---|---|---|"]
        for name, field in fields.items():
            if not field.description:
                raise MissingDescriptionError(f"setting {name!r} has no description (Field(description=...))")
            variable = " or ".join(f"`{env}`" for env in env_names(name, field))
            cells = [variable, type_text(field), default_text(name, field), _meaning(field.description)]
            lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
        lines.append("")
    lines += ["## Other variables", "", "Read from the environment outside the settings model:", ""]
    lines += ["| variable | default | meaning |", "|---|---|---|"]
    lines += [f"| {name} | {default} | {meaning} |" for name, default, meaning in OTHER_VARIABLES]
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Write the page, or with --check say whether the committed one is current (exit 1 if not)."""
    parser = argparse.ArgumentParser(prog="python -m app.config.reference", description=__doc__)
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PAGE)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    page = render()
    if args.check:
        current = args.path.read_text() if args.path.exists() else ""
        if current != page:
            sys.stderr.write(f"{args.path} is out of date: run `make settings-docs`\n")
            return 1
        return 0
    args.path.write_text(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
