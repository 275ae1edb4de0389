"""What a fire asks for (`FireRequest`) and what it answers (`FireResult`), whatever triggered it."""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from app.definitions.run_modes import LlmMode, RunMode
from app.persistence.models import AutomationStatus, Run
from app.services.runs.admission import TriggerType

__all__ = ["FireOutcome", "FireRequest", "FireResult", "FiredAutomation", "ParentLink"]

FireOutcome = Literal["created", "deduplicated", "queued", "dropped"]
"""What became of a fire: a pending run, the run its idempotency key already made, a run held back in
the queue, or a run recorded as dropped with its reason."""


class FiredAutomation(Protocol):
    """What a fire reads of its automation: an `Automation` row, or the same columns selected as plain
    values by a hot path (`AutomationHead`)."""

    @property
    def id(self) -> uuid.UUID: ...

    @property
    def space_id(self) -> uuid.UUID: ...

    @property
    def status(self) -> AutomationStatus: ...

    @property
    def version(self) -> int: ...

    @property
    def created_by(self) -> uuid.UUID | None: ...

    @property
    def definition(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class ParentLink:
    """The run whose `call_automation` step fires this one, the step's path, and the child's depth."""

    run_id: uuid.UUID
    path: str
    depth: int


@dataclass(frozen=True)
class FireRequest:
    """One fire of an automation, whatever triggered it."""

    trigger_type: TriggerType
    payload: dict[str, Any] = field(default_factory=dict)
    inputs: dict[str, Any] = field(default_factory=dict)
    trigger_id: uuid.UUID | None = None
    idempotency_key: str | None = None
    actor_id: uuid.UUID | None = None
    chain_depth: int = 0
    last_fired_at: str | None = None
    # An API caller hears about bad inputs (422, nothing created); a trigger's fire is recorded as dropped.
    refuse_bad_inputs: bool = True
    # Set when the caller already knows the fire must not run (e.g. an event chain too deep): a dropped run.
    refuse_reason: str | None = None
    # Checked by the caller (egress guard, the space's callback secret); the terminal event goes there too.
    callback_url: str | None = None
    # A dry or verify run holds writes back, stays out of the concurrency policy and announces no end.
    mode: RunMode = "live"
    llm: LlmMode = "run"
    replay_of: uuid.UUID | None = None
    # (version, document) to run instead of the automation's current one: a replay of a snapshot.
    snapshot: tuple[int, dict[str, Any]] | None = None
    # Where a queued run stands: higher first, then oldest first (only a queued run waits on it).
    priority: int = 0
    # A child run started by another run's `call_automation` step.
    parent: ParentLink | None = None

    def request_hash(self) -> str:
        """What an idempotency key is checked against: the same key must come with the same request."""
        request: dict[str, Any] = {"inputs": self.inputs, "payload": self.payload}
        if (self.mode, self.llm) != ("live", "run"):
            # Only a try-out adds its mode, so a live request hashes as it always did.
            request.update(mode=self.mode, llm=self.llm)
        body = json.dumps(request, sort_keys=True, default=str)
        return hashlib.sha256(body.encode()).hexdigest()


@dataclass(frozen=True)
class FireResult:
    """The run a fire made, or (`created` False) the one its idempotency key had already made."""

    run: Run
    created: bool
    outcome: FireOutcome = "created"
