"""The permission inputs of spaces and automations: action modes, approval settings, and a claim's view.

`PUT …/automations/{id}/action-modes` and `PUT …/spaces/{space}/action-modes` replace a level of the
cascade (`app.engine.permissions`); `PUT …/spaces/{space}/approval-settings` sets the approval TTL and
whether the people behind a run may approve its calls. Each change is recorded in the policy audit
(`app.services.governance.audit`) with its author and the value before and after. `for_claim` reads what a
claim needs once, so the pipeline's rules answer from memory for every call of that claim.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from app.definitions.automation import AutomationDefinition
from app.engine.capabilities.governance import CallDecision, Governance
from app.engine.mode_rules import RULES_KEY, rule_problems, rules_of
from app.engine.permissions import mode_problems
from app.engine.standing_grants import StandingGrant
from app.errors import ErrorDetail, NotFound, ValidationFailed
from app.persistence.models import Automation, Run, Space
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.repositories.invocations import InvocationRepository
from app.persistence.repositories.policy import ApprovalGrantRepository
from app.persistence.types import AsyncSession
from app.services.automations.store import automation_service
from app.services.governance.audit import policy_audit
from app.services.identity.access import Permissions, SpaceAccess

DEFAULT_APPROVAL_TTL_SECONDS = 24 * 3600
MIN_APPROVAL_TTL_SECONDS = 60
MAX_APPROVAL_TTL_SECONDS = 30 * 24 * 3600


@dataclass(frozen=True)
class ApprovalSettings:
    """A space's approval settings, with their defaults filled in."""

    approval_ttl_seconds: int = DEFAULT_APPROVAL_TTL_SECONDS
    forbid_self_approval: bool = False

    @classmethod
    def of(cls, space: Space) -> ApprovalSettings:
        settings = space.settings or {}
        return cls(
            approval_ttl_seconds=int(settings.get("approval_ttl_seconds", DEFAULT_APPROVAL_TTL_SECONDS)),
            forbid_self_approval=bool(settings.get("forbid_self_approval", False)),
        )


def _approval_settings(settings: ApprovalSettings) -> dict[str, Any]:
    return {
        "approval_ttl_seconds": settings.approval_ttl_seconds,
        "forbid_self_approval": settings.forbid_self_approval,
    }


def _pointer(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _checked_modes(
    modes: dict[str, Any], rules: list[Any] | None, current: dict[str, Any] | None
) -> dict[str, Any]:
    """The level's new column value: the map, and the rules (`None` keeps the current ones)."""
    problems = [ErrorDetail(f"/modes/{_pointer(key)}", message) for key, message in mode_problems(modes)]
    if rules is not None:
        problems += [ErrorDetail(f"/rules{at}", message) for at, message in rule_problems(rules)]
    if problems:
        raise ValidationFailed(
            "Some action modes are invalid.", code="invalid_action_modes", details=problems
        )
    stored: dict[str, Any] = {key: str(value) for key, value in modes.items()}
    kept = rules if rules is not None else rules_of(current)
    if kept:
        stored[RULES_KEY] = kept
    return stored


class GovernanceService:
    async def set_automation_modes(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        automation_id: uuid.UUID,
        modes: dict[str, Any],
        rules: list[Any] | None = None,
    ) -> Automation:
        """Replace the automation's overrides and, when given, its rules (a policy column: no new
        definition version)."""
        access.require(Permissions.manage_space)
        automation = await automation_service.get(session, access, automation_id)
        before = dict(automation.action_modes or {})
        automation.action_modes = _checked_modes(modes, rules, before)
        await policy_audit.record(
            session,
            space_id=access.space_id,
            automation_id=automation.id,
            actor_id=access.user_id,
            kind="automation_modes",
            before=before,
            after=automation.action_modes,
        )
        await session.flush()
        return automation

    async def space(self, session: AsyncSession, access: SpaceAccess) -> Space:
        space = await session.get(Space, access.space_id)
        if space is None:
            raise NotFound("Space not found.", code="space_not_found")
        return space

    async def set_space_modes(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        modes: dict[str, Any],
        rules: list[Any] | None = None,
    ) -> Space:
        """Replace the space default modes and, when given, its rules (admins and owners)."""
        access.require(Permissions.manage_space)
        space = await self.space(session, access)
        before = dict(space.action_modes or {})
        space.action_modes = _checked_modes(modes, rules, before)
        await policy_audit.record(
            session,
            space_id=space.id,
            actor_id=access.user_id,
            kind="space_modes",
            before=before,
            after=space.action_modes,
        )
        await session.flush()
        return space

    async def set_approval_settings(
        self, session: AsyncSession, access: SpaceAccess, settings: ApprovalSettings
    ) -> Space:
        access.require(Permissions.manage_space)
        space = await self.space(session, access)
        before = _approval_settings(ApprovalSettings.of(space))
        space.settings = {**(space.settings or {}), **_approval_settings(settings)}
        await policy_audit.record(
            session,
            space_id=space.id,
            actor_id=access.user_id,
            kind="approval_settings",
            before=before,
            after=_approval_settings(settings),
        )
        await session.flush()
        return space

    async def allow_in_space(
        self, session: AsyncSession, *, space_id: uuid.UUID, capability: str, actor_id: uuid.UUID
    ) -> None:
        """`always_space`: write `allow` for one capability into the space default, recorded as a change."""
        space = await session.get(Space, space_id, with_for_update=True)
        if space is None:
            return
        before = dict(space.action_modes or {})
        space.action_modes = {**before, capability: "allow"}
        await policy_audit.record(
            session,
            space_id=space_id,
            actor_id=actor_id,
            kind="space_modes",
            before=before,
            after=space.action_modes,
        )
        await session.flush()

    async def for_claim(
        self,
        session: AsyncSession,
        run: Run,
        definition: AutomationDefinition,
        modes: tuple[dict[str, Any], dict[str, Any]] | None = None,
        approval_grants: list[list[str]] | None = None,
    ) -> Governance:
        """What the pipeline's rules need for one claim: modes and standing approvals now, tool grants
        and write policy from the run's snapshot, and the decisions of calls that paused on an earlier
        claim.

        `modes` (the automation's, the space's) and `approval_grants` when the claim already read them
        with the run.
        """
        if modes is None:
            modes = await AutomationRepository(session).action_modes(run.automation_id)
        if approval_grants is None:
            approval_grants = await ApprovalGrantRepository(session).live(run.automation_id)
        automation_modes, space_modes = modes
        decisions: dict[str, CallDecision] = {}
        if run.attempt > 1:  # a first claim has no paused calls to look up
            for row in await InvocationRepository(session).decided_for_run(run.id):
                decisions[row.call_key] = CallDecision(
                    str(row.id), row.status, row.decision_note, row.params_hash
                )
        policy = definition.execution
        return Governance(
            automation_modes=automation_modes,
            space_modes=space_modes,
            write_policy=policy.write_policy,
            grants=[grant.model_dump(exclude_none=True) for grant in policy.tool_grants]
            if policy.tool_grants is not None
            else None,
            decisions=decisions,
            approval_grants=tuple(StandingGrant(*row) for row in approval_grants),
        )


governance_service = GovernanceService()
