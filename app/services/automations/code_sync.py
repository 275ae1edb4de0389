"""Export a space's automations to files, and apply files back, through the service's REST API.

The commands are clients of the public API, as the web UI is, so an apply from CI needs nothing but the
server's URL and a token (one with the `as_code` scope is enough). `export_files` reads what
`code_files.render` writes. `plan_apply` checks every file against the space before anything changes:
the definition with the space's own validator (`POST …/automations/validate`), the key against the
automations already there, the base version against the current one, the caller's role against a change
of action modes; it returns one `Change` per file with its diff, or raises `ApplyRefused` listing every
problem. `apply_changes` then makes the changes file by file with the API's own calls: a new automation
is created (paused), a definition replaced with `If-Match` on the file's base version, the action modes
set, and the automation activated or paused as the file says.

The API has no transaction across requests: a refusal while applying (a concurrent edit answering 412,
an overlap needing a coexistence note) stops at that file, after the files before it were applied. An
apply is idempotent, so the same apply once the file is fixed finishes the job.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import ValidationError

from app.definitions.automation import AutomationDefinition
from app.engine.mode_rules import RULES_KEY
from app.integrations.service_api import ApiRefused, ServiceApi
from app.services.automations.code_files import AutomationFile, key_of, render_managed

ADMIN_ROLES = ("admin", "owner")


@dataclass(frozen=True)
class Problem:
    """Why a file cannot be applied: its name, a JSON pointer into it and, from the API, the error code."""

    file_name: str
    pointer: str
    message: str
    code: str | None = None

    def __str__(self) -> str:
        located = f"{self.file_name} {self.pointer or '/'}: {self.message}"
        return f"{located} [{self.code}]" if self.code else located


class ApplyRefused(Exception):
    """Files that cannot be applied; `applied` names the files whose changes were made before."""

    def __init__(self, problems: Sequence[Problem], applied: Sequence[str] = ()) -> None:
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = list(problems)
        self.applied = list(applied)


@dataclass(frozen=True)
class Space:
    """The space an apply acts on, and the caller's role in it."""

    id: str
    name: str
    role: str


@dataclass(frozen=True)
class Current:
    """An automation of the space as the API shows it, with its action modes and rules."""

    id: str
    status: str
    version: int
    definition: dict[str, Any]
    action_modes: dict[str, Any]
    coexistence_note: str | None


@dataclass(frozen=True)
class Change:
    """What applying one file does: `create`, `update` or `unchanged`, and the diff that shows it."""

    file_name: str
    wanted: AutomationFile
    action: str
    diff: list[str]
    current: Current | None


@dataclass
class Applied:
    """What an apply did: the files changed, and how many new webhook trigger tokens it made."""

    files: list[str] = field(default_factory=list)
    new_tokens: int = 0


def space_of(api: ServiceApi, space: str) -> Space:
    """The space named by id (or, with a full-access token, by name) and the caller's role in it."""
    found = api.space(space)
    return Space(str(found["id"]), str(found["name"]), str(found["role"]))


def _modes(api: ServiceApi, space_id: str, automation_id: str) -> dict[str, Any]:
    """An automation's action modes as a file holds them: the map, and its rules under `$rules`."""
    stored = api.action_modes(space_id, automation_id)
    modes = dict(stored.get("modes") or {})
    if stored.get("rules"):
        modes[RULES_KEY] = stored["rules"]
    return modes


def _current(api: ServiceApi, space_id: str, item: dict[str, Any]) -> Current:
    return Current(
        id=str(item["id"]),
        status=str(item["status"]),
        version=int(item["version"]),
        definition=item["definition"],
        action_modes=_modes(api, space_id, str(item["id"])),
        coexistence_note=item.get("coexistence_note"),
    )


def _grants(api: ServiceApi, space_id: str, automation_id: str) -> list[dict[str, Any]]:
    """The automation's live standing grants, for review (an apply never changes them)."""
    rows = [
        {
            "capability": grant["capability"],
            "step_id": grant["step_id"],
            "target": grant["target"],
            "definition_version": grant["definition_version"],
            "granted_by": grant.get("granted_by"),
            "granted_at": grant["granted_at"],
        }
        for grant in api.approval_grants(space_id, automation_id)
        if grant.get("lapsed_at") is None
    ]
    return sorted(rows, key=lambda row: (row["capability"], row["step_id"], row["target"]))


def export_files(api: ServiceApi, space: Space) -> list[AutomationFile]:
    """One file per active or paused automation, ordered by key; two automations with one key are
    refused (give one a `metadata.key`), since their files would overwrite each other."""
    files: dict[str, AutomationFile] = {}
    for item in api.automations(space.id):
        current = _current(api, space.id, item)
        exported = AutomationFile(
            key=key_of(current.definition),
            status=current.status,
            definition=current.definition,
            action_modes=current.action_modes,
            base_version=current.version,
            coexistence_note=current.coexistence_note,
            standing_grants=_grants(api, space.id, current.id),
        )
        if exported.key in files:
            raise ApiRefused(
                409,
                "duplicate_key",
                f"Two automations have the key {exported.key!r} ({files[exported.key].definition['name']!r} "
                f"and {item['name']!r}); set a distinct metadata.key in one of their definitions.",
            )
        files[exported.key] = exported
    return [files[key] for key in sorted(files)]


def _checked(api: ServiceApi, space: Space, file_name: str, wanted: AutomationFile) -> list[Problem]:
    verdict = api.validate(space.id, wanted.definition)
    return [
        Problem(
            file_name, "/definition" + str(error.get("path") or ""), str(error["message"]), error.get("code")
        )
        for error in verdict.get("errors") or []
    ]


def _normalised(file_name: str, wanted: AutomationFile) -> AutomationFile | Problem:
    """The definition as the server stores it (defaults filled in), so the diff shows real changes only."""
    try:
        document = AutomationDefinition.model_validate(wanted.definition).to_document()
    except ValidationError as exc:  # the server found it valid: a client older than the server
        return Problem(file_name, "/definition", f"this client cannot read it: {exc.errors()[0]['msg']}")
    return replace(wanted, definition=document)


def plan_apply(
    api: ServiceApi, space: Space, files: Sequence[tuple[str, AutomationFile]], *, force: bool
) -> list[Change]:
    """What applying these (file name, content) pairs would do; `ApplyRefused` lists every problem:
    an invalid definition, a key given twice or held by two automations, a stale base version, a
    change of action modes the caller's role cannot make."""
    problems: list[Problem] = []
    by_key: dict[str, list[dict[str, Any]]] = {}
    for item in api.automations(space.id):
        by_key.setdefault(key_of(item["definition"]), []).append(item)
    seen: dict[str, str] = {}
    changes: list[Change] = []
    for file_name, wanted in files:
        if wanted.key in seen:
            problems.append(
                Problem(file_name, "/key", f"{wanted.key!r} is also the key of {seen[wanted.key]}")
            )
            continue
        seen[wanted.key] = file_name
        invalid = _checked(api, space, file_name, wanted)
        if invalid:
            problems += invalid
            continue
        normalised = _normalised(file_name, wanted)
        if isinstance(normalised, Problem):
            problems.append(normalised)
            continue
        matches = by_key.get(wanted.key, [])
        if len(matches) > 1:
            problems.append(
                Problem(
                    file_name,
                    "/key",
                    f"{len(matches)} automations of the space have this key; "
                    "set a distinct metadata.key in all but one",
                )
            )
            continue
        current = _current(api, space.id, matches[0]) if matches else None
        change = _change(file_name, normalised, current)
        if change.action == "update" and not force and current is not None:
            problems += _stale(file_name, normalised, current)
        problems += _role_problems(space, change)
        changes.append(change)
    if problems:
        raise ApplyRefused(problems)
    return changes


def _change(file_name: str, wanted: AutomationFile, current: Current | None) -> Change:
    before = render_managed(_state_of(current)) if current is not None else []
    after = render_managed(wanted.managed())
    if before == after:
        return Change(file_name, wanted, "unchanged", [], current)
    diff = list(difflib.unified_diff(before, after, "space" if current else "(new)", file_name))
    return Change(file_name, wanted, "update" if current else "create", diff, current)


def _state_of(current: Current) -> dict[str, Any]:
    return {"status": current.status, "action_modes": current.action_modes, "definition": current.definition}


def _stale(file_name: str, wanted: AutomationFile, current: Current) -> list[Problem]:
    # A file without a base version may still set the status and modes of an automation whose
    # definition it already holds: what an apply stopped by a refusal after creating it left behind.
    if wanted.base_version is None and wanted.definition != current.definition:
        return [
            Problem(
                file_name,
                "/base_version",
                f"missing, and the automation exists at version "
                f"{current.version}: export it first, or apply with --force",
            )
        ]
    if wanted.base_version is not None and wanted.base_version != current.version:
        return [
            Problem(
                file_name,
                "/base_version",
                f"the automation is at version {current.version}, changed "
                f"since this file's base {wanted.base_version}: export again and redo the change, or "
                "apply with --force",
            )
        ]
    return []


def _role_problems(space: Space, change: Change) -> list[Problem]:
    """Action modes need an admin: found before anything changes, not halfway through an apply."""
    before = change.current.action_modes if change.current is not None else {}
    if change.action == "unchanged" or space.role in ADMIN_ROLES or change.wanted.action_modes == before:
        return []
    return [
        Problem(
            change.file_name,
            "/action_modes",
            f"Your role in this space ({space.role}) cannot change action modes; it needs admin or above.",
            "role_insufficient",
        )
    ]


def apply_changes(api: ServiceApi, space: Space, changes: Sequence[Change], *, force: bool) -> Applied:
    """Make the planned changes, file by file. A refusal of the API becomes `ApplyRefused` naming the
    file, the field it came from and the API's error code, and the files applied before it."""
    applied = Applied()
    for change in changes:
        if change.action == "unchanged":
            continue
        done: list[str] = []
        try:
            applied.new_tokens += _apply_one(api, space, change, done, force=force)
        except _Refused as refused:
            if done:
                applied.files.append(f"{change.file_name} (only: {', '.join(done)})")
            raise ApplyRefused(refused.problems, applied.files) from None
        applied.files.append(change.file_name)
    return applied


class _Refused(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems)
        self.problems = problems


# Where the API's pointers for a section's call point to in the file.
_SECTION_PATHS = {"/action_modes": {"/modes": "/action_modes", "/rules": f"/action_modes/{RULES_KEY}"}}


def _located(file_name: str, pointer: str, exc: ApiRefused) -> _Refused:
    """An API refusal as problems of the file, at `pointer` (or inside it, when the API located it)."""
    details = []
    for detail in exc.details:
        path = detail.path
        for prefix, section in _SECTION_PATHS.get(pointer, {}).items():
            if path == prefix or path.startswith(prefix + "/"):
                path = section + path[len(prefix) :]
        details.append(Problem(file_name, path if path.startswith(pointer) else pointer, detail.message))
    return _Refused([Problem(file_name, pointer, exc.message, exc.code), *details])


def _new_tokens(saved: dict[str, Any]) -> int:
    return sum(1 for trigger in saved.get("triggers") or [] if trigger.get("token"))


def _apply_one(api: ServiceApi, space: Space, change: Change, done: list[str], *, force: bool) -> int:
    """Apply one file's change; `done` collects the steps made, to report a file applied in part."""
    wanted, current, name = change.wanted, change.current, change.file_name
    tokens = 0
    status, modes = "paused", {}
    try:
        if current is None:
            saved = api.create(space.id, wanted.definition)
            automation_id, tokens = str(saved["id"]), _new_tokens(saved)
            done.append("created paused")
        else:
            automation_id, status, modes = current.id, current.status, current.action_modes
            if current.definition != wanted.definition:
                expected = None if force else wanted.base_version
                tokens = _new_tokens(api.update(space.id, automation_id, wanted.definition, expected))
                done.append("definition updated")
    except ApiRefused as exc:
        stale = exc.status in (412, 428) or exc.code == "version_conflict"
        pointer = "/base_version" if stale else "/definition"
        raise _located(name, pointer, exc) from None
    if modes != wanted.action_modes:
        plain = {key: value for key, value in wanted.action_modes.items() if key != RULES_KEY}
        try:
            api.set_action_modes(space.id, automation_id, plain, wanted.action_modes.get(RULES_KEY) or [])
            done.append("action modes set")
        except ApiRefused as exc:
            raise _located(name, "/action_modes", exc) from None
    if status != wanted.status:
        try:
            if wanted.status == "active":
                api.activate(space.id, automation_id, wanted.coexistence_note)
            else:
                api.pause(space.id, automation_id)
        except ApiRefused as exc:
            raise _located(name, "/status", exc) from None
    return tokens
