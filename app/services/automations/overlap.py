"""Overlap warnings: other automations of the space that fire alike, write alike or mean alike.

Saving, drafting and activating ask this service; the comparison itself is `app.engine.overlap`. An
automation with a strict overlap (a shared write target) with an active one is activated only with an
acknowledgement and a note on why both may run (kept on the automation).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.engine.overlap import Footprint, Reason, compare, footprint
from app.errors import Conflict, ErrorDetail, NotFound, ValidationFailed
from app.persistence.base import utcnow
from app.persistence.models import Automation, AutomationStatus
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.types import AsyncSession
from app.registry import ActionDefinition, Capability, Registry
from app.registry import actions as native_actions
from app.registry import capabilities as native_capabilities
from app.services.automations.overlap_query import TargetQuery, candidate_footprint, check_trigger_kind
from app.services.identity.access import Permissions, SpaceAccess

NOTE_MIN, NOTE_MAX = 10, 1000
# Enough for a space's automations; past it the newest are compared (the list is a warning, not a lock).
MAX_COMPARED = 2000


@dataclass(frozen=True)
class Overlap:
    automation_id: uuid.UUID
    name: str
    status: str
    reasons: list[Reason]
    trigger_kinds: list[str] = field(default_factory=list, compare=False)

    @property
    def strict(self) -> bool:
        return any(reason.strict for reason in self.reasons)

    def as_dict(self) -> dict[str, Any]:
        return {
            "automation_id": str(self.automation_id),
            "name": self.name,
            "status": self.status,
            "strict": self.strict,
            "reasons": [reason.as_dict() for reason in self.reasons],
        }


def _capabilities_of(actions: Registry[ActionDefinition]) -> Mapping[str, Sequence[str]]:
    return {action.type: action.uses_capabilities for action in actions}


@dataclass(frozen=True)
class OverlapMatch:
    """An overlap as the stand-alone check answers it: with its owner, last run and trigger kinds."""

    overlap: Overlap
    owner_id: uuid.UUID | None
    owner_email: str | None
    last_run_at: datetime | None
    trigger_kinds: list[str]


@dataclass(frozen=True)
class OverlapReport:
    matches: list[OverlapMatch]

    @property
    def strict_count(self) -> int:
        return sum(1 for match in self.matches if match.overlap.strict)


def trigger_kinds(document: Mapping[str, Any]) -> list[str]:
    """The kinds of the definition's enabled triggers, each once, in their order."""
    triggers = document.get("triggers")
    kinds = [
        trigger.get("type")
        for trigger in (triggers if isinstance(triggers, list) else [])
        if isinstance(trigger, dict) and trigger.get("enabled", True) is not False
    ]
    return list(dict.fromkeys(kind for kind in kinds if isinstance(kind, str)))


class OverlapService:
    def __init__(
        self,
        actions: Registry[ActionDefinition] = native_actions,
        capabilities: Registry[Capability] = native_capabilities,
    ) -> None:
        self.actions = actions
        self.native = frozenset(capability.id for capability in capabilities)

    def footprint(self, document: Mapping[str, Any]) -> Footprint:
        return footprint(document, _capabilities_of(self.actions), self.native)

    async def find(
        self,
        session: AsyncSession,
        space_id: uuid.UUID,
        document: Mapping[str, Any],
        *,
        exclude: uuid.UUID | None = None,
        statuses: Sequence[AutomationStatus] = (AutomationStatus.active, AutomationStatus.paused),
    ) -> list[Overlap]:
        """Automations of the space (in `statuses`, not `exclude`) that overlap this definition."""
        return await self._find(session, space_id, self.footprint(document), exclude, statuses)

    async def check(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        *,
        automation_id: uuid.UUID | None,
        targets: TargetQuery,
        trigger_kind: str | None = None,
    ) -> OverlapReport:
        """The stand-alone check: an existing automation (`automation_id`) or a candidate's write targets
        against the space's active and paused automations, optionally only those with a trigger kind."""
        access.require(Permissions.read)
        kind = check_trigger_kind(trigger_kind)
        if (automation_id is None) == targets.empty:
            raise ValidationFailed(
                "Give either automation_id or the candidate's write targets (http, slack_channel, "
                "email_to, tool), not both and not neither.",
                code="overlap_query_invalid",
                details=[ErrorDetail(path="/automation_id", message="automation_id, or targets")],
            )
        if automation_id is not None:
            automation = await AutomationRepository(session).get_in_space(access.space_id, automation_id)
            if automation is None:
                raise NotFound("Automation not found.", code="automation_not_found")
            mine = self.footprint(automation.definition)
        else:
            mine = candidate_footprint(targets)
        statuses = (AutomationStatus.active, AutomationStatus.paused)
        overlaps = await self._find(session, access.space_id, mine, automation_id, statuses)
        kinds = {overlap.automation_id: overlap.trigger_kinds for overlap in overlaps}
        found = [overlap for overlap in overlaps if kind is None or kind in kinds[overlap.automation_id]]
        facts = await AutomationRepository(session).owners_and_last_runs([o.automation_id for o in found])
        return OverlapReport(
            [
                OverlapMatch(
                    overlap, *facts.get(overlap.automation_id, (None, None, None)), overlap.trigger_kinds
                )
                for overlap in found
            ]
        )

    async def _find(
        self,
        session: AsyncSession,
        space_id: uuid.UUID,
        mine: Footprint,
        exclude: uuid.UUID | None,
        statuses: Sequence[AutomationStatus],
    ) -> list[Overlap]:
        now = utcnow()
        statement = AutomationRepository(session).listing_statement(space_id, list(statuses))
        if exclude is not None:
            statement = statement.where(Automation.id != exclude)
        others = await AutomationRepository(session).get_all(
            statement.order_by(Automation.created_at.desc()).limit(MAX_COMPARED)
        )
        found = []
        for other in others:
            reasons = compare(mine, self.footprint(other.definition), now)
            if reasons:
                found.append(
                    Overlap(
                        other.id, other.name, other.status.value, reasons, trigger_kinds(other.definition)
                    )
                )
        return found

    async def check_activation(
        self,
        session: AsyncSession,
        automation: Automation,
        *,
        acknowledged: bool,
        note: str | None,
    ) -> None:
        """Refuse to activate over a strict overlap with an active automation unless acknowledged.

        409 `overlap_unacknowledged` lists the overlaps; with the acknowledgement, the note is kept.
        """
        if acknowledged and (note is None or not NOTE_MIN <= len(note.strip()) <= NOTE_MAX):
            raise ValidationFailed(
                "Acknowledging an overlap needs a coexistence_note of 10 to 1,000 characters.",
                code="coexistence_note_required",
                details=[ErrorDetail(path="/coexistence_note", message="10 to 1,000 characters")],
            )
        if automation.status is not AutomationStatus.paused:
            return  # already active (a no-op), or archived (refused by the status change itself)
        overlaps = await self.find(
            session,
            automation.space_id,
            automation.definition,
            exclude=automation.id,
            statuses=(AutomationStatus.active,),
        )
        strict = [overlap for overlap in overlaps if overlap.strict]
        if strict and not acknowledged:
            raise Conflict(
                f"This automation overlaps {len(strict)} active automation(s); activate with "
                '"acknowledged_overlap": true and a "coexistence_note" saying why both should run.',
                code="overlap_unacknowledged",
                details=[
                    ErrorDetail(
                        path=f"/overlaps/{index}",
                        code="strict_overlap",
                        message=f"{overlap.automation_id} ({overlap.name}): "
                        + "; ".join(reason.message for reason in overlap.reasons),
                    )
                    for index, overlap in enumerate(strict)
                ],
            )
        if acknowledged and note is not None:
            automation.coexistence_note = note.strip()


overlap_service = OverlapService()
