"""Response shapes of standing approvals (`always` grants) and the policy audit."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from app.api.schemas import Out
from app.persistence.models import ApprovalGrant


class ApprovalGrantOut(Out):
    id: uuid.UUID
    automation_id: uuid.UUID
    capability: str
    step_id: str = Field(description="The step whose call was approved.")
    target: str = Field(
        description="What the call acts on: `METHOD scheme://host[:port]/path?query` for http.request "
        "(the literal URL less fragment and user info), the capability id for an MCP tool or a "
        "capability without a target."
    )
    definition_version: int = Field(description="The automation version the approved run ran.")
    granted_by: uuid.UUID | None
    granted_at: datetime
    invocation_id: uuid.UUID | None = Field(description="The approval it came from.")
    status: Literal["active", "lapsed"]
    lapsed_at: datetime | None
    lapsed_version: int | None = Field(description="The version whose call of the step had another target.")
    lapsed_target: str | None

    @classmethod
    def of(cls, grant: ApprovalGrant) -> ApprovalGrantOut:
        return cls.model_validate(
            {
                **{key: getattr(grant, key) for key in cls.model_fields if key != "status"},
                "status": "active" if grant.lapsed_at is None else "lapsed",
            }
        )


class PolicyChangeOut(Out):
    id: uuid.UUID
    automation_id: uuid.UUID | None = Field(description="None: a change of the space itself.")
    actor_id: uuid.UUID | None
    kind: str = Field(
        description="space_modes, automation_modes, approval_settings, approval_grant_added or "
        "approval_grant_revoked."
    )
    before: Any
    after: Any
    created_at: datetime
