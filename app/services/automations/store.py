"""Automations: create, read, update with optimistic concurrency, status changes, versions."""

from __future__ import annotations

import builtins
import enum
import uuid
from dataclasses import dataclass, field
from typing import Any

from app.definitions.automation import AutomationDefinition
from app.engine.validation import Problem, Vocabulary
from app.errors import Conflict, ErrorDetail, NotFound
from app.persistence.base import utcnow
from app.persistence.models import Automation, AutomationStatus, AutomationVersion
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.automations import AutomationRepository, AutomationVersionRepository
from app.persistence.types import AsyncSession
from app.services.automations.call_cycles import refuse_call_cycles
from app.services.automations.definitions import check_definition, problems_of
from app.services.identity.access import Permissions, SpaceAccess
from app.services.mcp_server.exposure import claimed_tool_name
from app.services.triggers.sync import NewToken, trigger_service

DEFAULT_LISTED = [AutomationStatus.active, AutomationStatus.paused]


@dataclass(frozen=True)
class Saved:
    """An automation as just saved, with the validator's warnings (which never block a save)."""

    automation: Automation
    warnings: list[Problem]
    tokens: list[NewToken] = field(default_factory=list)


class StatusAction(enum.Enum):
    activate = "activated"
    pause = "paused"
    archive = "archived"
    unarchive = "unarchived"


_A, _P, _X = AutomationStatus.active, AutomationStatus.paused, AutomationStatus.archived
# (current status, requested change) -> new status; a missing pair is refused with 409.
_TRANSITIONS: dict[tuple[AutomationStatus, StatusAction], AutomationStatus] = {
    (_A, StatusAction.activate): _A,
    (_P, StatusAction.activate): _A,
    (_A, StatusAction.pause): _P,
    (_P, StatusAction.pause): _P,
    (_A, StatusAction.archive): _X,
    (_P, StatusAction.archive): _X,
    (_X, StatusAction.archive): _X,
    (_X, StatusAction.unarchive): _P,
}


class AutomationService:
    async def create(
        self, session: AsyncSession, access: SpaceAccess, document: Any, vocabulary: Vocabulary | None = None
    ) -> Saved:
        """Save a new automation, paused, as version 1."""
        access.require(Permissions.write_automations)
        checked = await check_definition(document, vocabulary)
        definition = checked.definition
        stored = definition.to_document()
        automation_id = uuid.uuid4()
        await refuse_call_cycles(session, access.space_id, automation_id, stored)
        tool_name = await claimed_tool_name(session, access.space_id, definition, automation_id)
        automation = await AutomationRepository(session).create(
            Automation(
                id=automation_id,
                space_id=access.space_id,
                created_by=access.user_id,
                name=definition.name,
                description=definition.description or definition.goal,
                status=AutomationStatus.paused,
                version=1,
                definition=stored,
                mcp_tool_name=tool_name,
            )
        )
        await self._record_version(session, automation, access, restored_from=None)
        tokens = await trigger_service.sync(session, automation, definition)
        await session.refresh(automation, attribute_names=["triggers"])
        return Saved(automation, checked.warnings, tokens)

    async def validate(
        self, access: SpaceAccess, document: Any, vocabulary: Vocabulary | None = None
    ) -> list[Problem]:
        """Every problem of a definition, without saving anything."""
        access.require(Permissions.read)
        return await problems_of(document, vocabulary)

    async def list(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        *,
        statuses: list[AutomationStatus] | None,
        limit: int,
        cursor: str | None,
    ) -> Page[Automation]:
        """Newest first; archived automations only when asked for by status."""
        return await paginate(
            session,
            AutomationRepository(session).listing_statement(access.space_id, statuses or DEFAULT_LISTED),
            order_by=[Automation.created_at, Automation.id],
            limit=limit,
            cursor=cursor,
        )

    async def get(self, session: AsyncSession, access: SpaceAccess, automation_id: uuid.UUID) -> Automation:
        return await self._get(session, access, automation_id, for_update=False)

    async def update(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        automation_id: uuid.UUID,
        document: Any,
        *,
        expected_version: int | None,
        vocabulary: Vocabulary | None = None,
    ) -> Saved:
        """Replace the definition if the caller saw the current version (None: any); store a new version."""
        access.require(Permissions.write_automations)
        checked = await check_definition(document, vocabulary)
        automation = await self._get_for_change(session, access, automation_id, expected_version)
        await refuse_call_cycles(session, access.space_id, automation.id, checked.definition.to_document())
        tokens = await self._new_version(session, access, automation, checked.definition, restored_from=None)
        return Saved(automation, checked.warnings, tokens)

    async def change_status(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        automation_id: uuid.UUID,
        action: StatusAction,
        *,
        expected_version: int | None = None,
    ) -> Automation:
        """Activate, pause, archive or unarchive. Repeating a change that is already done is a no-op."""
        access.require(Permissions.write_automations)
        automation = await self._get(session, access, automation_id, for_update=True)
        self._check_version(automation, expected_version)
        target = _TRANSITIONS.get((automation.status, action))
        if target is None:
            raise Conflict(
                f"An {automation.status.value} automation cannot be {action.value}; "
                + (
                    "unarchive it first (it comes back paused)."
                    if automation.status is AutomationStatus.archived
                    else "only archived automations can be unarchived."
                ),
                code="automation_archived"
                if automation.status is AutomationStatus.archived
                else "not_archived",
            )
        if target != automation.status:
            automation.status = target
            automation.archived_at = utcnow() if target is AutomationStatus.archived else None
            automation.updated_at = utcnow()
            await session.flush()
            await trigger_service.status_changed(session, automation)
        return automation

    async def list_versions(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        automation_id: uuid.UUID,
        *,
        limit: int,
        cursor: str | None,
    ) -> Page[AutomationVersion]:
        automation = await self.get(session, access, automation_id)
        return await paginate(
            session,
            AutomationVersionRepository(session).versions_statement(automation.id),
            order_by=[AutomationVersion.version],
            limit=limit,
            cursor=cursor,
        )

    async def get_version(
        self, session: AsyncSession, access: SpaceAccess, automation_id: uuid.UUID, version: int
    ) -> AutomationVersion:
        automation = await self.get(session, access, automation_id)
        found = await AutomationVersionRepository(session).get_version(automation.id, version)
        if found is None:
            raise NotFound(f"Version {version} not found.", code="version_not_found")
        return found

    async def restore(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        automation_id: uuid.UUID,
        version: int,
        *,
        expected_version: int | None,
        vocabulary: Vocabulary | None = None,
    ) -> Saved:
        """Make an old version current again, as a new version (history is never rewritten)."""
        access.require(Permissions.write_automations)
        automation = await self._get_for_change(session, access, automation_id, expected_version)
        old = await AutomationVersionRepository(session).get_version(automation.id, version)
        if old is None:
            raise NotFound(f"Version {version} not found.", code="version_not_found")
        # Re-validate: the definition language may have tightened since the old version was saved.
        checked = await check_definition(old.definition, vocabulary)
        await refuse_call_cycles(session, access.space_id, automation.id, old.definition)
        tokens = await self._new_version(
            session, access, automation, checked.definition, restored_from=version
        )
        return Saved(automation, checked.warnings, tokens)

    async def _get(
        self, session: AsyncSession, access: SpaceAccess, automation_id: uuid.UUID, *, for_update: bool
    ) -> Automation:
        automation = await AutomationRepository(session).get_in_space(
            access.space_id, automation_id, for_update=for_update
        )
        if automation is None:
            raise NotFound("Automation not found.", code="automation_not_found")
        return automation

    async def _get_for_change(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        automation_id: uuid.UUID,
        expected_version: int | None,
    ) -> Automation:
        # The row lock serialises concurrent edits, so the version check below cannot race.
        automation = await self._get(session, access, automation_id, for_update=True)
        self._check_version(automation, expected_version)
        if automation.status is AutomationStatus.archived:
            raise Conflict(
                "An archived automation cannot be edited; unarchive it first.", code="automation_archived"
            )
        return automation

    def _check_version(self, automation: Automation, expected_version: int | None) -> None:
        if expected_version is not None and expected_version != automation.version:
            raise Conflict(
                f"The automation is at version {automation.version}, not {expected_version}: "
                "reload it and apply your change again.",
                code="version_conflict",
                details=[ErrorDetail(path="/version", message=f"current version is {automation.version}")],
            )

    async def _new_version(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        automation: Automation,
        definition: AutomationDefinition,
        *,
        restored_from: int | None,
    ) -> builtins.list[NewToken]:
        automation.mcp_tool_name = await claimed_tool_name(
            session, automation.space_id, definition, automation.id
        )
        automation.definition = definition.to_document()
        automation.name = definition.name
        automation.description = definition.description or definition.goal
        automation.version += 1
        automation.updated_at = utcnow()
        await session.flush()
        await self._record_version(session, automation, access, restored_from=restored_from)
        tokens = await trigger_service.sync(session, automation, definition)
        await session.refresh(automation, attribute_names=["triggers"])
        return tokens

    async def _record_version(
        self, session: AsyncSession, automation: Automation, access: SpaceAccess, *, restored_from: int | None
    ) -> None:
        await AutomationVersionRepository(session).create(
            AutomationVersion(
                automation_id=automation.id,
                version=automation.version,
                definition=automation.definition,
                created_by=access.user_id,
                created_at=utcnow(),
                restored_from=restored_from,
            )
        )


automation_service = AutomationService()
