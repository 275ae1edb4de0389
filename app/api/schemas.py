"""Request and response bodies of the REST API."""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Annotated, Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.definitions.run_modes import LlmMode, RunMode
from app.engine.mode_rules import plain_modes
from app.persistence.models import AutomationStatus
from app.persistence.models.runs import MAX_PRIORITY, MIN_PRIORITY
from app.services.runs.follow import MAX_WAIT_SECONDS

T = TypeVar("T")
MAX_VERSION = 2**31 - 1
"""Versions are PostgreSQL integers: a larger number names no version and must not reach the database."""


class Body(BaseModel):
    """Request bodies refuse unknown fields, so a typo is an error and not silently ignored."""

    model_config = ConfigDict(extra="forbid")


class Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class ListOut(BaseModel, Generic[T]):
    """The shape every listing answers with: its items, in order."""

    items: list[T]


class PageOut(ListOut[T], Generic[T]):
    next_cursor: str | None = Field(
        description="Pass as `cursor` to get the next page; null on the last page."
    )


ExpectedVersion = Annotated[
    int | None, Field(ge=1, le=MAX_VERSION, description="Expected current version (or use If-Match).")
]


class AutomationCreate(Body):
    definition: dict[str, Any] = Field(
        description="The automation definition (see GET /api/v1/schemas/definition)."
    )


class DefinitionCheck(Body):
    definition: dict[str, Any] = Field(
        description="Any JSON object: every way it falls short of a definition is reported, not refused."
    )


class AutomationUpdate(Body):
    definition: dict[str, Any]
    version: ExpectedVersion = None


class VersionPrecondition(Body):
    version: ExpectedVersion = None


class Activation(VersionPrecondition):
    acknowledged_overlap: bool = Field(
        default=False, description="Activate although it strictly overlaps active automations."
    )
    coexistence_note: str | None = Field(
        default=None,
        min_length=10,
        max_length=1000,
        description="Why both may run (10 to 1,000 characters); needed with acknowledged_overlap, kept.",
    )


class OverlapReasonOut(BaseModel):
    kind: str = Field(description="schedule, event, write or goal.")
    message: str
    strict: bool


class OverlapOut(BaseModel):
    automation_id: uuid.UUID
    name: str
    status: str
    strict: bool = Field(description="A shared write target: activating needs an acknowledgement.")
    reasons: list[OverlapReasonOut]


class TriggerOut(Out):
    id: uuid.UUID
    type: str
    position: int = Field(description="Index among the definition's triggers of the same type.")
    name: str | None
    enabled: bool
    event_type: str | None
    next_fire_at: datetime | None
    last_fired_at: datetime | None
    token_prefix: str | None = Field(description="Start of the webhook token, to tell tokens apart.")
    token: str | None = Field(
        default=None, description="A new webhook token; shown once, only when it is made."
    )


class AutomationOut(Out):
    id: uuid.UUID
    space_id: uuid.UUID
    name: str
    status: AutomationStatus
    version: int
    definition: dict[str, Any]
    created_by: uuid.UUID | None
    created_at: datetime
    updated_at: datetime
    archived_at: datetime | None
    coexistence_note: str | None = Field(
        default=None, description="Why it may run beside the automations it overlaps (given on activate)."
    )
    triggers: list[TriggerOut]
    action_modes: dict[str, str] = Field(
        default_factory=dict,
        description="Permission overrides (PUT …/action-modes); not part of the definition. Its rules over "
        "arguments are listed by GET …/action-modes.",
    )

    @field_validator("action_modes", mode="before")
    @classmethod
    def _without_rules(cls, value: Any) -> Any:
        # The column keeps the level's rules beside its map; this field shows the map.
        return plain_modes(value) if isinstance(value, dict) else value


class ProblemOut(BaseModel):
    path: str = Field(description="JSON pointer into the definition.")
    code: str
    message: str
    severity: str


class AutomationSavedOut(AutomationOut):
    warnings: list[ProblemOut] = Field(
        default_factory=list, description="Things worth a look that did not block saving."
    )
    overlaps: list[OverlapOut] = Field(
        default_factory=list, description="Automations of the space that fire, write or mean alike."
    )


class ValidationOut(BaseModel):
    valid: bool
    errors: list[ProblemOut]
    warnings: list[ProblemOut]


class AutomationVersionOut(Out):
    automation_id: uuid.UUID
    version: int
    definition: dict[str, Any]
    created_by: uuid.UUID | None
    created_at: datetime
    restored_from: int | None


class RunCreate(Body):
    inputs: dict[str, Any] = Field(
        default_factory=dict, description="Inputs; the inputs schema's defaults fill the rest."
    )
    callback_url: str | None = Field(
        default=None,
        min_length=1,
        max_length=2048,
        description="Also deliver this run's terminal event here, signed with the space's callback secret.",
    )
    mode: RunMode = Field(
        default="live",
        description="live; dry_run (every write held back, reads run); verify (external writes held back).",
    )
    llm: LlmMode = Field(default="run", description="skip: a dry or verify run calls no model.")
    priority: int = Field(
        default=0,
        ge=MIN_PRIORITY,
        le=MAX_PRIORITY,
        description="Where the run stands if it is queued: higher first, then oldest first.",
    )
    wait_seconds: float = Field(
        default=0,
        ge=0,
        le=MAX_WAIT_SECONDS,
        description="Answer with the finished run if it ends within this many seconds (else 202 as usual).",
    )


class RunPriority(Body):
    priority: int = Field(ge=MIN_PRIORITY, le=MAX_PRIORITY, description="Higher is promoted first.")


class RanAsOut(BaseModel):
    """The identity a run acts as (`run.creator_id`)."""

    user_id: uuid.UUID
    email: str
    name: str | None


class RunOut(Out):
    id: uuid.UUID
    space_id: uuid.UUID
    automation_id: uuid.UUID
    automation_version: int
    status: str
    reason: str | None
    queue: str
    trigger_type: str
    trigger_id: uuid.UUID | None
    inputs: dict[str, Any]
    attempt: int = Field(description="How many times a worker has claimed the run.")
    cancel_requested: bool
    retry_at: datetime | None
    output: Any | None
    error: dict[str, Any] | None
    failed_step_id: str | None
    cost_usd: float
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    mode: str = "live"
    llm_mode: str = "run"
    replay_of: uuid.UUID | None = Field(default=None, description="The run this one replays.")
    parent_run_id: uuid.UUID | None = Field(
        default=None,
        description="The run whose call_automation step started this one (its children: "
        "GET /runs?parent_run_id=).",
    )
    parent_path: str | None = Field(default=None, description="The parent's step path that started it.")
    children_cost_usd: float = Field(
        default=0.0,
        description="Model spend of its finished child runs (counted against its budget; not in cost_usd).",
    )
    depth: int = Field(default=0, description="0 for a top run; a child is its parent's depth + 1.")
    ran_as: RanAsOut | None = Field(
        default=None,
        description="Who the run acts as: who started it by hand, else the automation's creator.",
    )
    priority: int = 0
    promoted_at: datetime | None = Field(default=None, description="When it left the queue.")
    promotion_reason: str | None = Field(default=None, description="Why it left the queue then.")
    url: str = ""


class RunStepOut(Out):
    phase: str
    step_index: int = Field(description="The step's index within its own step list.")
    path: str = Field(
        description="Which execution of the step the record is: its step_id, behind `<loop id>/<iteration>/` "
        "for each loop around it (`fetch/3/classify`)."
    )
    step_id: str
    action: str
    attempt: int
    status: str
    config: Any | None
    output: Any | None
    error: dict[str, Any] | None
    suppressed: list[Any] | None = Field(
        default=None, description="Calls a dry or verify run held back: capability, params, mode."
    )
    started_at: datetime
    finished_at: datetime | None
    duration_ms: int | None


class StepSpendOut(Out):
    step_id: str
    calls: int = Field(description="Model calls the step made (an agent's turns count one each).")
    input_tokens: int
    output_tokens: int
    cost_usd: float


class RunDetailOut(RunOut):
    trigger_payload: dict[str, Any]
    definition: dict[str, Any] = Field(description="The definition snapshot this run executes.")
    steps: list[RunStepOut]


class NotificationOut(Out):
    id: uuid.UUID
    run_id: uuid.UUID | None
    level: str
    title: str
    body: str
    created_at: datetime


EventType = Annotated[
    str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*$")
]


MAX_EVENT_PAYLOAD_BYTES = 256 * 1024
"""An event's payload is copied into the trigger payload of every run it fires: kept well under a body."""


class EventCreate(Body):
    event_type: EventType
    payload: dict[str, Any] = Field(
        default_factory=dict, description=f"At most {MAX_EVENT_PAYLOAD_BYTES} bytes as compact JSON."
    )
    source_id: str | None = Field(default=None, max_length=255)

    @field_validator("payload")
    @classmethod
    def _bounded(cls, payload: dict[str, Any]) -> dict[str, Any]:
        size = len(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
        if size > MAX_EVENT_PAYLOAD_BYTES:
            raise ValueError(f"must be at most {MAX_EVENT_PAYLOAD_BYTES} bytes as JSON (this one is {size})")
        return payload


class EventOut(Out):
    id: uuid.UUID
    event_type: str
    source_id: str | None
    payload: dict[str, Any]
    chain_depth: int
    consumed_by: list[Any] = Field(description="The triggers it fired: {trigger_id, run_id, status}.")
    created_at: datetime
    dispatched_at: datetime | None


class FireOut(BaseModel):
    run_id: uuid.UUID
    status: str
    url: str = Field(description="The run in the space's API (an API token reads it).")
    run_url: str = Field(
        description="The run as this trigger's caller reads it, with the same trigger token."
    )
    error: dict[str, Any] | None = Field(default=None, description="With ?wait, when the run ended.")
    output: Any | None = Field(
        default=None, description="With ?wait, when the run ended and the trigger shows callers its output."
    )


class CallerRunOut(BaseModel):
    """What a webhook caller reads of a run its trigger fired."""

    run_id: uuid.UUID
    status: str
    error: dict[str, Any] | None
    output: Any | None = Field(
        default=None, description="Only when the trigger's output_visibility is caller."
    )
    url: str
