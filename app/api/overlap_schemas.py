"""Response body of the stand-alone overlap check."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, Field

from app.api.schemas import OverlapReasonOut
from app.services.automations.overlap import OverlapReport


class OverlapOwnerOut(BaseModel):
    user_id: uuid.UUID
    email: str | None


class OverlapMatchOut(BaseModel):
    automation_id: uuid.UUID
    name: str
    status: str
    strict: bool = Field(description="A shared write target: they could duplicate each other's writes.")
    owner: OverlapOwnerOut | None = Field(description="Who created it (null once that user is gone).")
    last_run_at: datetime | None
    trigger_kinds: list[str] = Field(description="The kinds of its enabled triggers.")
    reasons: list[OverlapReasonOut]


class OverlapCheckOut(BaseModel):
    count: int
    strict_count: int
    matches: list[OverlapMatchOut]

    @classmethod
    def of(cls, report: OverlapReport) -> OverlapCheckOut:
        return cls(
            count=len(report.matches),
            strict_count=report.strict_count,
            matches=[
                OverlapMatchOut(
                    automation_id=match.overlap.automation_id,
                    name=match.overlap.name,
                    status=match.overlap.status,
                    strict=match.overlap.strict,
                    owner=OverlapOwnerOut(user_id=match.owner_id, email=match.owner_email)
                    if match.owner_id is not None
                    else None,
                    last_run_at=match.last_run_at,
                    trigger_kinds=match.trigger_kinds,
                    reasons=[OverlapReasonOut(**reason.as_dict()) for reason in match.overlap.reasons],
                )
                for match in report.matches
            ],
        )
