"""Runs and their step attempts: the persisted run queue and its history."""

from __future__ import annotations

import uuid
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import CheckConstraint, Enum, ForeignKey, Index, Integer, Numeric, String, Text, func, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.definitions.run_states import RunStatus
from app.persistence.base import Base, IdMixin

RUN_STATUSES = tuple(status.value for status in RunStatus)
# A plain string column (no PostgreSQL enum type: adding a state is a CHECK change, not a type change)
# that loads as RunStatus.
RUN_STATUS_TYPE = Enum(
    RunStatus,
    native_enum=False,
    create_constraint=False,
    length=32,
    values_callable=lambda items: [i.value for i in items],
)
STEP_STATUSES = ("running", "succeeded", "failed", "skipped", "suspended")
RUN_MODE_VALUES = ("live", "dry_run", "verify")
MIN_PRIORITY, MAX_PRIORITY = -1000, 1000
LLM_MODE_VALUES = ("run", "skip")


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Run(IdMixin, Base):
    __tablename__ = "runs"
    __table_args__ = (
        CheckConstraint(_one_of("status", RUN_STATUSES), name="status"),
        CheckConstraint(_one_of("mode", RUN_MODE_VALUES), name="mode"),
        CheckConstraint(_one_of("llm_mode", LLM_MODE_VALUES), name="llm_mode"),
        CheckConstraint(f"priority BETWEEN {MIN_PRIORITY} AND {MAX_PRIORITY}", name="priority_range"),
        Index("ix_runs_space_created", "space_id", "created_at", "id"),
        # What a live stream replays after a gap: the space's runs whose status moved since then.
        Index("ix_runs_space_status_changed", "space_id", "status_changed_at"),
        Index("ix_runs_automation_status", "automation_id", "status"),
        # One automation's runs by day, for its charts.
        Index("ix_runs_automation_created", "automation_id", "created_at"),
        # The queue in promotion order, and the rows recovery looks at: both stay small.
        Index(
            "ix_runs_queued",
            text("priority DESC"),
            "created_at",
            "id",
            postgresql_where=text("status = 'queued'"),
        ),
        # The pending runs of each queue in claim order: a worker's direct claim picks the first.
        Index(
            "ix_runs_pending_order",
            "queue",
            text("priority DESC"),
            "created_at",
            "id",
            postgresql_where=text("status = 'pending'"),
        ),
        Index(
            "ix_runs_live",
            "status",
            "lease_expires_at",
            postgresql_where=text("status IN ('pending', 'running')"),
        ),
        # A parent's children, and the waiting runs the lost-wake-up recovery looks at: both small.
        Index("ix_runs_parent", "parent_run_id", postgresql_where=text("parent_run_id IS NOT NULL")),
        Index("ix_runs_waiting", "status_changed_at", postgresql_where=text("status = 'waiting'")),
        Index(
            "uq_runs_idempotency",
            "automation_id",
            "idempotency_key",
            unique=True,
            postgresql_where=text("idempotency_key IS NOT NULL"),
        ),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    automation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("automations.id", ondelete="CASCADE"))
    automation_version: Mapped[int] = mapped_column(Integer)
    definition: Mapped[dict[str, Any]] = mapped_column(JSONB, comment="Snapshot the run executes.")
    status: Mapped[RunStatus] = mapped_column(RUN_STATUS_TYPE)
    reason: Mapped[str | None] = mapped_column(
        Text, comment="Why it was dropped, queued, failed or cancelled."
    )
    queue: Mapped[str] = mapped_column(String(32))
    priority: Mapped[int] = mapped_column(
        Integer,
        default=0,
        server_default="0",
        comment="Queued runs are promoted by priority (higher first), then oldest first.",
    )
    promoted_at: Mapped[datetime | None] = mapped_column(
        comment="When the promoter moved it from queued to pending."
    )
    promotion_reason: Mapped[str | None] = mapped_column(
        Text, comment="Why it was promoted then, e.g. slot freed by run <id>."
    )
    trigger_type: Mapped[str] = mapped_column(String(16))
    trigger_id: Mapped[uuid.UUID | None]
    trigger_payload: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    inputs: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    idempotency_key: Mapped[str | None] = mapped_column(String(255))
    request_hash: Mapped[str | None] = mapped_column(String(64))
    chain_depth: Mapped[int] = mapped_column(Integer, default=0)
    created_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    callback_url: Mapped[str | None] = mapped_column(
        Text, comment="Where this run's terminal event is delivered too."
    )
    mode: Mapped[str] = mapped_column(
        String(16), default="live", server_default="live", comment="live, dry_run or verify."
    )
    llm_mode: Mapped[str] = mapped_column(
        String(8), default="run", server_default="run", comment="skip: a dry or verify run calls no model."
    )
    replay_of: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("runs.id", ondelete="SET NULL"), comment="The run this one replays."
    )

    parent_run_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("runs.id", ondelete="SET NULL"), comment="The run whose call_automation step started it."
    )
    parent_path: Mapped[str | None] = mapped_column(Text, comment="The parent's step path that started it.")
    depth: Mapped[int] = mapped_column(
        Integer, default=0, server_default="0", comment="0 for a top run; a child is its parent's + 1."
    )
    wake_requested: Mapped[bool] = mapped_column(
        default=False,
        server_default="false",
        comment="A wake-up came while the run was not waiting; its claim's wait goes to pending instead.",
    )

    attempt: Mapped[int] = mapped_column(Integer, default=0, comment="Claims so far; the fencing token.")
    claimed_by: Mapped[str | None] = mapped_column(String(255))
    lease_expires_at: Mapped[datetime | None]
    retry_at: Mapped[datetime | None] = mapped_column(
        comment="A pending run waits for its backoff until then."
    )
    enqueued_at: Mapped[datetime | None]
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    deadline_at: Mapped[datetime | None]

    output: Mapped[Any | None] = mapped_column(JSONB)
    error: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    failed_step_id: Mapped[str | None] = mapped_column(String(64))
    cost_usd: Mapped[Decimal] = mapped_column(Numeric(12, 6), default=Decimal(0))
    llm_tokens: Mapped[int] = mapped_column(
        Integer, default=0, server_default="0", comment="LLM input + output tokens so far."
    )
    children_cost_usd: Mapped[Decimal] = mapped_column(
        Numeric(12, 6),
        default=Decimal(0),
        server_default="0",
        comment="LLM spend of its finished child runs (and theirs): counted against its budget, "
        "kept apart from its own cost so totals never count it twice.",
    )
    children_llm_tokens: Mapped[int] = mapped_column(
        Integer,
        default=0,
        server_default="0",
        comment="LLM tokens of its finished child runs (and theirs), counted against its token cap.",
    )

    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    status_changed_at: Mapped[datetime] = mapped_column(
        server_default=func.now(),
        comment="When the status last moved (creation included); written by every statement that moves it.",
    )


class RunStep(IdMixin, Base):
    __tablename__ = "run_steps"
    __table_args__ = (
        CheckConstraint(_one_of("status", STEP_STATUSES), name="status"),
        Index("uq_run_steps_path_attempt", "run_id", "phase", "path", "attempt", unique=True),
    )

    run_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    phase: Mapped[str] = mapped_column(String(16), comment="plan or on_failure")
    step_index: Mapped[int] = mapped_column(Integer)
    path: Mapped[str] = mapped_column(
        String(1024),
        comment="Which execution of the step: step_id behind `<loop>/<iteration>/` per loop around it.",
    )
    step_id: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(100))
    attempt: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    config: Mapped[Any | None] = mapped_column(JSONB, comment="Rendered config, redacted.")
    output: Mapped[Any | None] = mapped_column(JSONB, comment="For display: redacted, at most 10 KB.")
    output_full: Mapped[Any | None] = mapped_column(
        JSONB, comment="For later steps and resume, at most 1 MB."
    )
    error: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    loop_items: Mapped[list[Any] | None] = mapped_column(
        JSONB,
        comment="For a for_each: the full list it iterates, rendered when it began (secrets scrubbed).",
    )
    suspension: Mapped[dict[str, Any] | None] = mapped_column(
        JSONB, comment="For a suspended attempt: the paused call's identity, capability and reason."
    )
    suppressed: Mapped[list[Any] | None] = mapped_column(
        JSONB, comment="Calls a dry or verify run held back in this attempt: capability, params, mode."
    )
    started_at: Mapped[datetime] = mapped_column(server_default=func.now())
    finished_at: Mapped[datetime | None]
    duration_ms: Mapped[int | None] = mapped_column(Integer)


class DomainEvent(IdMixin, Base):
    __tablename__ = "domain_events"
    __table_args__ = (
        Index("ix_domain_events_space_created", "space_id", "created_at"),
        Index("ix_domain_events_undispatched", "created_at", postgresql_where=text("dispatched_at IS NULL")),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    event_type: Mapped[str] = mapped_column(String(200))
    source_id: Mapped[str | None] = mapped_column(String(255))
    payload: Mapped[dict[str, Any]] = mapped_column(JSONB)
    chain_depth: Mapped[int] = mapped_column(Integer, default=0)
    consumed_by: Mapped[list[Any]] = mapped_column(JSONB, default=list)
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
    dispatched_at: Mapped[datetime | None]
    expires_at: Mapped[datetime]


class Notification(IdMixin, Base):
    __tablename__ = "notifications"
    __table_args__ = (Index("ix_notifications_space_created", "space_id", "created_at", "id"),)

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    run_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    level: Mapped[str] = mapped_column(String(16))
    title: Mapped[str] = mapped_column(String(300))
    body: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
    read_at: Mapped[datetime | None]


class LlmUsage(IdMixin, Base):
    """The cost ledger: one row per LLM call, with what it used and cost.

    A call belongs either to a run (automation, run and step set) or to the authoring of a draft
    (`draft_id` set, `purpose` naming the pass), never to neither.
    """

    __tablename__ = "llm_usage"
    __table_args__ = (
        Index("ix_llm_usage_automation_created", "automation_id", "created_at"),
        Index("ix_llm_usage_run", "run_id"),
        Index(
            "ix_llm_usage_space_authoring",
            "space_id",
            "created_at",
            postgresql_where=text("draft_id IS NOT NULL"),
        ),
        CheckConstraint("run_id IS NOT NULL OR draft_id IS NOT NULL", name="run_or_draft"),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    automation_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("automations.id", ondelete="CASCADE"))
    run_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    step_id: Mapped[str | None] = mapped_column(String(64))
    draft_id: Mapped[str | None] = mapped_column(String(64))
    purpose: Mapped[str] = mapped_column(String(32), server_default="run")
    model: Mapped[str] = mapped_column(String(200))
    input_tokens: Mapped[int] = mapped_column(Integer)
    output_tokens: Mapped[int] = mapped_column(Integer)
    cost_usd: Mapped[Decimal] = mapped_column(Numeric(12, 6))
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())


WAIT_KINDS = ("time", "event", "child")


class RunWait(IdMixin, Base):
    """What a waiting step waits for: a time, an event, a child run's end. One row per (run, step path);
    `satisfied_at` is set once, by whoever satisfies it first (a conditional update)."""

    __tablename__ = "run_waits"
    __table_args__ = (
        CheckConstraint(_one_of("kind", WAIT_KINDS), name="kind"),
        Index("uq_run_waits_path", "run_id", "path", unique=True),
        # The due-time tick reads only open rows that are due: O(due), not O(waiting).
        Index("ix_run_waits_due", "due_at", postgresql_where=text("satisfied_at IS NULL")),
        # Event matching reads only the open event waits of the event's space and type.
        Index(
            "ix_run_waits_event",
            "space_id",
            "event_type",
            postgresql_where=text("kind = 'event' AND satisfied_at IS NULL"),
        ),
        Index("ix_run_waits_child", "child_run_id", postgresql_where=text("child_run_id IS NOT NULL")),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    run_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    path: Mapped[str] = mapped_column(Text, comment="The waiting step's path in the plan.")
    kind: Mapped[str] = mapped_column(String(8))
    event_type: Mapped[str | None] = mapped_column(String(200))
    filter: Mapped[dict[str, Any] | None] = mapped_column(JSONB, comment="The rendered event filter.")
    due_at: Mapped[datetime | None] = mapped_column(comment="When the time is up (a timeout for events).")
    child_run_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    satisfied_at: Mapped[datetime | None]
    outcome: Mapped[Any | None] = mapped_column(
        JSONB, comment="The matched event's payload, {timed_out: true}, {due: true} or the child's result."
    )
    created_at: Mapped[datetime] = mapped_column(server_default=func.now())
