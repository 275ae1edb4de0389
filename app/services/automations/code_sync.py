"""Export a space's automations to files, and apply files back: plan first, then change.

`export_files` reads what `code_files.render` writes. `plan_apply` checks every file against the space
(the definition with the validator the API uses, the key against the automations already there, the
base version against the current one) and returns one `Change` per file with its diff, or raises
`ApplyRefused` listing every problem. `apply_changes` makes the planned changes through the same
services the API calls: a file's automation is created paused, its definition replaced with optimistic
concurrency, its action modes set (recorded in the policy audit), and it is activated or paused as the
file says. Nothing here commits: the caller decides whether a run's changes are kept, all or none.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from app.engine.mode_rules import RULES_KEY, rules_of
from app.engine.validation import Vocabulary
from app.errors import AppError, Conflict, NotFound, ValidationFailed
from app.persistence.models import Automation, AutomationStatus
from app.persistence.repositories.tenancy import MembershipRepository, SpaceRepository, UserRepository
from app.persistence.types import AsyncSession
from app.services.automations.code_files import AutomationFile, key_of, render_managed
from app.services.automations.definitions import check_definition
from app.services.automations.overlap import overlap_service
from app.services.automations.store import StatusAction, automation_service
from app.services.governance.grants import approval_grant_service
from app.services.governance.modes import governance_service
from app.services.identity.access import Caller, SpaceAccess

PAGE = 100
NO_TOKEN = uuid.UUID(int=0)
"""The token id of a caller acting from the command line, where no API token is presented."""


@dataclass(frozen=True)
class Problem:
    """Why a file cannot be applied: its name and a JSON pointer into it."""

    file_name: str
    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.file_name} {self.pointer or '/'}: {self.message}"


class ApplyRefused(Exception):
    """Files that cannot be applied; nothing was (or will be) changed."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = list(problems)


@dataclass(frozen=True)
class Change:
    """What applying one file does: `create`, `update` or `unchanged`, and the diff that shows it."""

    file_name: str
    wanted: AutomationFile
    action: str
    diff: list[str]
    automation: Automation | None


async def acting_access(session: AsyncSession, space: str, email: str) -> SpaceAccess:
    """The named user's access to a space they are a member of, the space given by id or by name."""
    user = await UserRepository(session).get_by_email(email.lower())
    if user is None:
        raise NotFound(f"No user has the email {email}.", code="user_not_found")
    spaces = await SpaceRepository(session).get_all(SpaceRepository(session).readable_statement(user.id))
    found = [found for found in spaces if str(found.id) == space or found.name == space]
    if not found:
        raise NotFound(f"{email} is not a member of a space {space!r}.", code="space_not_found")
    if len(found) > 1:
        raise Conflict(
            f"{email} is a member of {len(found)} spaces named {space!r}; give the space's id.",
            code="space_ambiguous",
        )
    membership = await MembershipRepository(session).get(found[0].id, user.id)
    assert membership is not None  # the space was listed through this membership
    return SpaceAccess(Caller(user.id, user.email, NO_TOKEN), found[0].id, membership.role)


async def _automations(session: AsyncSession, access: SpaceAccess) -> list[Automation]:
    """The space's active and paused automations (archived ones are neither exported nor matched)."""
    found: list[Automation] = []
    cursor: str | None = None
    while True:
        page = await automation_service.list(session, access, statuses=None, limit=PAGE, cursor=cursor)
        found += page.items
        cursor = page.next_cursor
        if cursor is None:
            return found


async def _standing_grants(
    session: AsyncSession, access: SpaceAccess, automation: Automation
) -> list[dict[str, Any]]:
    """The automation's live standing grants, for review (an apply never changes them)."""
    grants = []
    cursor: str | None = None
    while True:
        page = await approval_grant_service.list(session, access, automation.id, limit=PAGE, cursor=cursor)
        grants += [grant for grant in page.items if grant.lapsed_at is None]
        cursor = page.next_cursor
        if cursor is None:
            break
    users = {
        user.id: user.email
        for user in await UserRepository(session).get_many({g.granted_by for g in grants if g.granted_by})
    }
    rows = [
        {
            "capability": grant.capability,
            "step_id": grant.step_id,
            "target": grant.target,
            "definition_version": grant.definition_version,
            "granted_by": users.get(grant.granted_by) if grant.granted_by else None,
            "granted_at": grant.granted_at.isoformat(),
        }
        for grant in grants
    ]
    return sorted(rows, key=lambda row: (row["capability"], row["step_id"], row["target"]))


def _file_of(automation: Automation, grants: list[dict[str, Any]]) -> AutomationFile:
    return AutomationFile(
        key=key_of(automation.definition),
        status=automation.status.value,
        definition=automation.definition,
        action_modes=dict(automation.action_modes or {}),
        base_version=automation.version,
        coexistence_note=automation.coexistence_note,
        standing_grants=grants,
    )


async def export_files(session: AsyncSession, access: SpaceAccess) -> list[AutomationFile]:
    """One file per active or paused automation, ordered by key; two automations with one key are
    refused (give one a `metadata.key`), since their files would overwrite each other."""
    files: dict[str, AutomationFile] = {}
    for automation in await _automations(session, access):
        exported = _file_of(automation, await _standing_grants(session, access, automation))
        if exported.key in files:
            raise Conflict(
                f"Two automations have the key {exported.key!r} ({files[exported.key].definition['name']!r} "
                f"and {automation.name!r}); set a distinct metadata.key in one of their definitions.",
                code="duplicate_key",
            )
        files[exported.key] = exported
    return [files[key] for key in sorted(files)]


async def plan_apply(
    session: AsyncSession,
    access: SpaceAccess,
    files: Sequence[tuple[str, AutomationFile]],
    vocabulary: Vocabulary,
    *,
    force: bool,
) -> list[Change]:
    """What applying these (file name, content) pairs would do; `ApplyRefused` lists every problem:
    an invalid definition, a key given twice or held by two automations, a stale base version."""
    problems: list[Problem] = []
    by_key: dict[str, list[Automation]] = {}
    for automation in await _automations(session, access):
        by_key.setdefault(key_of(automation.definition), []).append(automation)
    seen: dict[str, str] = {}
    changes: list[Change] = []
    for file_name, wanted in files:
        if wanted.key in seen:
            problems.append(
                Problem(file_name, "/key", f"{wanted.key!r} is also the key of {seen[wanted.key]}")
            )
            continue
        seen[wanted.key] = file_name
        try:
            checked = await check_definition(wanted.definition, vocabulary)
        except ValidationFailed as exc:
            problems += [Problem(file_name, detail.path or "", detail.message) for detail in exc.details]
            continue
        wanted = dataclasses.replace(wanted, definition=checked.definition.to_document())
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
        current = matches[0] if matches else None
        change = _change(file_name, wanted, current)
        if change.action == "update" and not force and current is not None:
            problems += _stale(file_name, wanted, current)
        changes.append(change)
    if problems:
        raise ApplyRefused(problems)
    return changes


def _change(file_name: str, wanted: AutomationFile, current: Automation | None) -> Change:
    before = render_managed(_state_of(current)) if current is not None else []
    after = render_managed(wanted.managed())
    if before == after:
        return Change(file_name, wanted, "unchanged", [], current)
    diff = list(difflib.unified_diff(before, after, "space" if current else "(new)", file_name))
    return Change(file_name, wanted, "update" if current else "create", diff, current)


def _state_of(automation: Automation) -> dict[str, Any]:
    return {
        "status": automation.status.value,
        "action_modes": dict(automation.action_modes or {}),
        "definition": automation.definition,
    }


def _stale(file_name: str, wanted: AutomationFile, current: Automation) -> list[Problem]:
    if wanted.base_version is None:
        return [
            Problem(
                file_name,
                "/base_version",
                f"missing, and the automation exists at version "
                f"{current.version}: export it first, or apply with --force",
            )
        ]
    if wanted.base_version != current.version:
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


async def apply_changes(
    session: AsyncSession,
    access: SpaceAccess,
    changes: Sequence[Change],
    vocabulary: Vocabulary,
    *,
    force: bool,
) -> int:
    """Make the planned changes; the number of new webhook trigger tokens (never shown: rotate one to
    see it). A refusal from a service (a role too low, an overlap, a concurrent edit) becomes
    `ApplyRefused` naming the file and the field it came from; the caller rolls everything back."""
    new_tokens = 0
    for change in changes:
        if change.action != "unchanged":
            new_tokens += await _apply_one(session, access, change, vocabulary, force=force)
    return new_tokens


@contextlib.asynccontextmanager
async def _refusals_of(file_name: str, pointer: str) -> AsyncIterator[None]:
    """A service's refusal as problems of the file, at `pointer` (or inside the definition, when the
    service located it there)."""
    try:
        yield
    except AppError as exc:
        located = [
            Problem(file_name, detail.path if detail.path.startswith(pointer) else pointer, detail.message)
            for detail in exc.details
        ]
        raise ApplyRefused([Problem(file_name, pointer, exc.message), *located]) from None


async def _apply_one(
    session: AsyncSession, access: SpaceAccess, change: Change, vocabulary: Vocabulary, *, force: bool
) -> int:
    wanted, automation, name = change.wanted, change.automation, change.file_name
    tokens = 0
    async with _refusals_of(name, "/definition"):
        if automation is None:
            saved = await automation_service.create(session, access, wanted.definition, vocabulary)
            automation, tokens = saved.automation, len(saved.tokens)
        elif automation.definition != wanted.definition:
            saved = await automation_service.update(
                session,
                access,
                automation.id,
                wanted.definition,
                expected_version=None if force else wanted.base_version,
                vocabulary=vocabulary,
            )
            tokens = len(saved.tokens)
    if dict(automation.action_modes or {}) != wanted.action_modes:
        plain = {key: value for key, value in wanted.action_modes.items() if key != RULES_KEY}
        async with _refusals_of(name, "/action_modes"):
            await governance_service.set_automation_modes(
                session, access, automation.id, plain, rules_of(wanted.action_modes)
            )
    if automation.status.value != wanted.status:
        async with _refusals_of(name, "/status"):
            if wanted.status == AutomationStatus.active.value:
                note = wanted.coexistence_note
                await overlap_service.check_activation(
                    session, automation, acknowledged=note is not None, note=note
                )
                await automation_service.change_status(session, access, automation.id, StatusAction.activate)
            else:
                await automation_service.change_status(session, access, automation.id, StatusAction.pause)
    return tokens
