"""Automations as files: one YAML document per automation, named by a stable key.

A file holds what a repository should review and apply: the definition (triggers, plan, execution
policy), the status (active or paused), the automation's action modes and, when it was activated over
an overlap, its coexistence note. It also records the version it was exported at (`base_version`, so
an apply can refuse to overwrite a change made since) and, read-only, the automation's standing grants.

The rendering is canonical: mappings sorted by key at every depth, lists in their own order, no line
folding, multi-line text as literal blocks. The same state always renders to the same bytes, so a
repository diff shows only real changes. Definitions hold secret references (`{"$secret": name}`),
never values, and are written as stored.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import yaml

from app.engine.mode_rules import RULES_KEY, rule_problems
from app.engine.permissions import mode_problems

FILE_SUFFIXES = (".yaml", ".yml")
HEADER = "# An automation as code: `automations apply` creates or updates it by its key.\n"
KEY_PATTERN = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$")
METADATA_KEY = "key"
APPLIED_STATUSES = ("active", "paused")
_FIELDS = (
    "key",
    "status",
    "base_version",
    "action_modes",
    "coexistence_note",
    "definition",
    "standing_grants",
)


@dataclass(frozen=True)
class FileProblem:
    """A problem of one file, located by a JSON pointer into the document."""

    pointer: str
    message: str


class FileInvalid(Exception):
    """A file that cannot be applied, with every problem found in it."""

    def __init__(self, problems: list[FileProblem]) -> None:
        super().__init__("; ".join(f"{p.pointer or '/'}: {p.message}" for p in problems))
        self.problems = problems


@dataclass(frozen=True)
class AutomationFile:
    """The content of one automation file."""

    key: str
    status: str
    definition: dict[str, Any]
    action_modes: dict[str, Any] = field(default_factory=dict)
    base_version: int | None = None
    coexistence_note: str | None = None
    standing_grants: list[dict[str, Any]] = field(default_factory=list)

    @property
    def file_name(self) -> str:
        return f"{self.key}.yaml"

    def managed(self) -> dict[str, Any]:
        """What an apply compares and changes: status, action modes and definition."""
        return {"status": self.status, "action_modes": self.action_modes, "definition": self.definition}


def slug(text: str) -> str:
    """Lowercase ASCII words joined by `-` (accents dropped), at most 100 characters."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return words[:100].rstrip("-") or "automation"


def key_of(definition: dict[str, Any]) -> str:
    """An automation's stable key: `metadata.key` when the definition sets a valid one, else the slug
    of its name. Setting `metadata.key` keeps the key (and the file) across a rename."""
    metadata = definition.get("metadata")
    explicit = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
    if isinstance(explicit, str) and KEY_PATTERN.match(explicit):
        return explicit
    name = definition.get("name")
    return slug(name if isinstance(name, str) else "")


def canonical(value: Any) -> Any:
    """The value with every mapping's keys sorted, at every depth."""
    if isinstance(value, dict):
        return {str(key): canonical(value[key]) for key in sorted(value, key=str)}
    if isinstance(value, list):
        return [canonical(item) for item in value]
    return value


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # equal values written twice stay two readable copies, never `&id001` anchors


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # Prompts and templates read best as literal blocks; PyYAML quotes them when a block cannot hold them.
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


class _Loader(yaml.SafeLoader):
    """YAML without implicit timestamps: a date-like string in a definition stays a string."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def dump_yaml(value: Any) -> str:
    """Canonical YAML text of a value (keys in the order given: call `canonical` first to sort them)."""
    text: str = yaml.dump(
        value, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1_000_000
    )
    return text


def render(automation_file: AutomationFile) -> str:
    """The file's bytes: fixed top-level order for reading, everything below sorted."""
    document: dict[str, Any] = {
        "key": automation_file.key,
        "status": automation_file.status,
        "base_version": automation_file.base_version,
        "action_modes": canonical(automation_file.action_modes),
    }
    if automation_file.coexistence_note is not None:
        document["coexistence_note"] = automation_file.coexistence_note
    document["definition"] = canonical(automation_file.definition)
    document["standing_grants"] = [canonical(grant) for grant in automation_file.standing_grants]
    return HEADER + dump_yaml(document)


def render_managed(state: dict[str, Any]) -> list[str]:
    """The lines of the part of a state an apply changes, for a unified diff."""
    return dump_yaml(canonical(state)).splitlines(keepends=True)


def parse(text: str) -> AutomationFile:
    """Read a file; `FileInvalid` lists every structural problem with its JSON pointer.

    The definition itself is checked later, by the same validator the API uses, against the target
    space's vocabulary; the standing grants are read-only and ignored.
    """
    try:
        document = yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise FileInvalid([FileProblem("", f"not valid YAML: {exc}")]) from None
    if not isinstance(document, dict):
        raise FileInvalid([FileProblem("", "must be a mapping with key, status and definition")])
    problems = [FileProblem(f"/{name}", "unknown field") for name in document if name not in _FIELDS]
    key, status, definition = document.get("key"), document.get("status"), document.get("definition")
    if not isinstance(definition, dict):
        problems.append(FileProblem("/definition", "must be a mapping (the automation's definition)"))
        definition = {}
    if not isinstance(key, str) or not KEY_PATTERN.match(key):
        problems.append(FileProblem("/key", "must be lowercase letters, digits and dashes (1-100)"))
    elif definition and key != key_of(definition):
        problems.append(
            FileProblem(
                "/key",
                f"must be {key_of(definition)!r}: the definition's metadata.key, else its name as a slug",
            )
        )
    if status not in APPLIED_STATUSES:
        problems.append(FileProblem("/status", "must be active or paused"))
    base_version = document.get("base_version")
    if base_version is not None and (
        isinstance(base_version, bool) or not isinstance(base_version, int) or base_version < 1
    ):
        problems.append(FileProblem("/base_version", "must be a version number (1 or more) or null"))
    note = document.get("coexistence_note")
    if note is not None and not isinstance(note, str):
        problems.append(FileProblem("/coexistence_note", "must be text"))
    modes = document.get("action_modes") or {}
    problems += _mode_problems(modes)
    if problems:
        raise FileInvalid(problems)
    return AutomationFile(
        key=str(key),
        status=str(status),
        definition=definition,
        action_modes=modes,
        base_version=base_version,
        coexistence_note=note,
    )


def _mode_problems(modes: Any) -> list[FileProblem]:
    """The same checks as `PUT …/action-modes`, located in the file."""
    if not isinstance(modes, dict):
        return [FileProblem("/action_modes", "must be a mapping of capability (or pattern) to mode")]
    plain = {key: value for key, value in modes.items() if key != RULES_KEY}
    problems = [
        FileProblem(f"/action_modes/{_escape(key)}", message) for key, message in mode_problems(plain)
    ]
    if RULES_KEY in modes:
        problems += [
            FileProblem(f"/action_modes/{_escape(RULES_KEY)}{at}", message)
            for at, message in rule_problems(modes[RULES_KEY])
        ]
    return problems


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
