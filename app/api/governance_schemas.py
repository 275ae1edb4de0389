"""Request and response shapes of invocations, approvals, action modes and approval settings."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import Field, StrictBool, StrictInt

from app.api.fields import stated
from app.api.outbound_schemas import RunDetailWithDeliveriesOut
from app.api.schemas import Body, Out, StepSpendOut
from app.engine.mode_rules import plain_modes, rules_of
from app.persistence.models import Role
from app.services.governance.modes import MAX_APPROVAL_TTL_SECONDS, MIN_APPROVAL_TTL_SECONDS
from app.services.governance.slack_settings import CHANNEL_PATTERN
from app.services.resources.secrets import NAME_PATTERN as SECRET_NAME_PATTERN

ModeValue = Literal["allow", "deny", "require_approval"]


class InvocationOut(Out):
    id: uuid.UUID
    space_id: uuid.UUID
    automation_id: uuid.UUID
    run_id: uuid.UUID
    step_id: str
    capability: str
    tier: str
    risk: str
    destructive: bool
    chosen_by: str = Field(description="definition (a tight step) or agent (a model's tool call).")
    mode: str
    mode_source: str
    mode_rule: dict[str, Any] | None = Field(
        default=None,
        description='The mode rule that decided the call, e.g. {"level": "automation", "index": 0}.',
    )
    required_approvals: int = Field(default=1, description="Distinct members who must approve the call.")
    params: Any = Field(description="Redacted; secrets appear as references.")
    params_hash: str | None = Field(
        default=None,
        description="For a call that asked for approval: SHA-256 of its full arguments (canonical JSON, "
        "secret references as written). The approval covers only a call whose arguments hash the same.",
    )
    target: str | None = Field(
        default=None,
        description="For a call that asked for approval: what it acts on (an HTTP request's method and URL, "
        "an MCP tool), which approving `always` grants for its step.",
    )
    status: str
    result: Any = Field(description="Redacted, at most 10 KB (`_truncated: true` when cut).")
    error: dict[str, Any] | None
    denied_reason: str | None
    duration_ms: int | None
    decided_by: uuid.UUID | None
    decided_at: datetime | None
    decision_scope: str | None
    expires_at: datetime | None
    completed_at: datetime | None
    created_at: datetime


class ApprovalDecisionOut(Out):
    user_id: uuid.UUID
    decision: Literal["approve", "deny"]
    via: Literal["api", "slack", "email"] = Field(description="Where the member decided.")
    note: str | None
    created_at: datetime


class ApprovalOut(InvocationOut):
    url: str = ""
    run_url: str = ""
    decisions: list[ApprovalDecisionOut] = Field(
        default_factory=list, description="Each member's decision so far, oldest first."
    )
    automation_name: str = Field(default="", description="The name of the automation whose run asks.")
    approvers: list[Role] = Field(
        default_factory=list,
        description="Who is asked: the roles in the space that may approve or deny the call.",
    )


class ApprovalDecision(Body):
    scope: Literal["once", "always", "always_space"] = Field(
        default="once",
        description="once: this call; always: also later calls of this step to the same target (a "
        "standing approval of this automation); always_space: allow the capability in the whole space.",
    )


class ApprovalDenial(Body):
    reason: str | None = Field(default=None, max_length=1000)


class ActionModes(Body):
    modes: dict[str, ModeValue] = Field(
        description='Capability id or pattern → mode, e.g. {"crm.create_note": "allow", "crm.*": "deny"}.'
    )
    rules: list[Any] | None = Field(
        default=None,
        description="Ordered rules over a call's arguments, tried before `modes` (first match wins): "
        '{"capability": "payments.refund", "when": {"amount": {"gt": 1000}}, "mode": "require_approval", '
        '"approvals": 2}. Left out: the level keeps its rules; [] removes them.',
    )


class ActionModesOut(Out):
    modes: dict[str, str]
    rules: list[dict[str, Any]] = Field(default_factory=list)

    @classmethod
    def of(cls, stored: dict[str, Any] | None) -> ActionModesOut:
        """A level's column: its map of modes and its rules."""
        return cls(modes=plain_modes(stored), rules=rules_of(stored))


class SlackApprovalsBody(Body):
    channel: str = Field(
        min_length=1,
        max_length=81,
        description="A channel id (C0123ABCD) or #name.",
        json_schema_extra=stated(pattern=CHANNEL_PATTERN.pattern),
    )
    bot_token_secret: str = Field(
        min_length=1,
        max_length=100,
        description="Name of the space secret holding the bot token (xoxb-…).",
        json_schema_extra=stated(pattern=SECRET_NAME_PATTERN),
    )
    signing_secret_secret: str = Field(
        min_length=1,
        max_length=100,
        description="Name of the space secret holding the app's signing secret.",
        json_schema_extra=stated(pattern=SECRET_NAME_PATTERN),
    )


class SlackApprovalsOut(Out):
    enabled: bool
    channel: str | None = None
    bot_token_secret: str | None = None
    signing_secret_secret: str | None = None
    interactivity_url: str = Field(description="The Request URL to give Slack's Interactivity settings.")


class ApprovalSettingsBody(Body):
    # Strict: a JSON 0 or "yes" is not a boolean, and 1.0 is not a number of seconds the schema allows.
    approval_ttl_seconds: StrictInt = Field(
        default=24 * 3600, ge=MIN_APPROVAL_TTL_SECONDS, le=MAX_APPROVAL_TTL_SECONDS
    )
    forbid_self_approval: StrictBool = False


class RunDetailWithInvocationsOut(RunDetailWithDeliveriesOut):
    invocations: list[InvocationOut] = Field(
        description="The run's capability calls, oldest first (at most 500)."
    )
    llm_spend: list[StepSpendOut] = Field(
        default_factory=list, description="Model spend per step, in the order the steps first called a model."
    )
