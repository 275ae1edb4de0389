"""Overlap warnings: other automations of the space that fire alike, write alike or mean alike.

Saving, drafting and activating ask this service; the comparison itself is `app.engine.overlap`. An
automation with a strict overlap (a shared write target) with an active one is activated only with an
acknowledgement and a note on why both may run (kept on the automation).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.engine.overlap import Footprint, Reason, compare, footprint
from app.errors import Conflict, ErrorDetail, ValidationFailed
from app.persistence.base import utcnow
from app.persistence.models import Automation, AutomationStatus
from app.persistence.repositories.automations import AutomationRepository
from app.registry import ActionDefinition, Registry
from app.registry import actions as native_actions

NOTE_MIN, NOTE_MAX = 10, 1000
# Enough for a space's automations; past it the newest are compared (the list is a warning, not a lock).
MAX_COMPARED = 2000


@dataclass(frozen=True)
class Overlap:
    automation_id: uuid.UUID
    name: str
    status: str
    reasons: list[Reason]

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


class OverlapService:
    def __init__(self, actions: Registry[ActionDefinition] = native_actions) -> None:
        self.actions = actions

    def footprint(self, document: Mapping[str, Any]) -> Footprint:
        return footprint(document, _capabilities_of(self.actions))

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
        mine = self.footprint(document)
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
                found.append(Overlap(other.id, other.name, other.status.value, reasons))
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
