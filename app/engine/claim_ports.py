"""What the executor needs from the claim that runs it (its journal and clock) and what it answers
(the claim's `Outcome`), so a worker and a unit test hand it different implementations of the same ports."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

Phase = Literal["plan", "on_failure"]
StepKey = tuple[str, str]
"""(phase, path): which execution of a step a record is (see `app.definitions.plan_tree`)."""


@dataclass(frozen=True)
class StepAt:
    """A step where the executor meets it: its path, its index within its own list, what it runs."""

    path: str
    index: int
    step_id: str
    action: str
    """The action type, or "if" / "for_each" for a block."""


class ClaimLost(BaseException):
    """The run is no longer this worker's (its lease expired and another claim took it).

    Like `Suspend`, it derives from `BaseException`: raised under a handler (an approval request the
    lost claim may no longer make), it must end the attempt, not become a tool error or a retry.
    """


class StopRequested(Exception):
    """The run must stop before the next attempt begins: "cancelled" or "lease_lost"."""

    def __init__(self, reason: Literal["cancelled", "lease_lost"]) -> None:
        super().__init__(reason)
        self.reason = reason


class Journal(Protocol):
    """Where the executor records what happens.

    Every call is durable when it returns, with one exception: an attempt's end (`finish_step`) may
    be recorded together with the journal's next write, which comes before anything else the run
    does (the next attempt's begin, the plan's failure, a stop check, the claim's finish). A crash in
    between loses the end of an attempt whose effects the run has not yet built on, as a crash just
    before `finish_step` would. Iterations of a loop call it concurrently: every end is kept until
    written, none replaces another.
    """

    async def begin_step(self, phase: Phase, at: StepAt, attempt: int) -> Any:
        """Record a new attempt (durable on return); raises `StopRequested` instead when the run was
        cancelled or the claim lost, and the attempt must not begin."""
        ...

    async def finish_step(
        self,
        record: Any,
        *,
        status: str,
        config: Any = None,
        output: Any = None,
        error: dict[str, Any] | None = None,
        suppressed: list[dict[str, Any]] | None = None,
    ) -> None:
        """Record how the attempt ended; `suppressed` lists the calls a dry or verify run held back."""
        ...

    async def suspend_step(self, record: Any, *, config: Any, suspension: dict[str, Any]) -> None:
        """The attempt paused at a call (`Suspend`): durable, so a later claim resumes this attempt;
        raises `ClaimLost` instead when the claim no longer holds the run."""
        ...

    async def fix_items(self, record: Any, items: list[Any]) -> None:
        """Record the full list a loop (`record`) iterates, before its first iteration (durable on
        return); raises `ClaimLost` instead when the claim no longer holds the run."""
        ...

    async def plan_failed(self, step_id: str, error: dict[str, Any]) -> None: ...

    async def stop_reason(self) -> str | None:
        """ "cancelled" or "lease_lost" when the run must stop, else None."""
        ...


class Clock(Protocol):
    """Time for the executor: deadlines, and waiting between attempts."""

    def now(self) -> datetime: ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The wall clock, in UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


@dataclass
class Resume:
    """What earlier claims of this run already did, reloaded from its step records."""

    outputs: dict[StepKey, Any] = field(default_factory=dict)
    """The output of every succeeded step, by (phase, path): bound again as the walk meets the step."""
    done: set[StepKey] = field(default_factory=set)
    """Steps that succeeded or were skipped: never run again."""
    items: dict[StepKey, list[Any]] = field(default_factory=dict)
    """The list each loop not done iterates, as recorded when it began: never rendered again."""
    failed_attempts: dict[StepKey, int] = field(default_factory=dict)
    failures: dict[StepKey, dict[str, Any]] = field(default_factory=dict)
    """The error of each not-done step's last failed attempt: a final one is not tried again."""
    plan_error: dict[str, Any] | None = None
    failed_step_id: str | None = None


@dataclass(frozen=True)
class Outcome:
    """How this claim of the run ended."""

    status: Literal[
        "succeeded", "failed", "timed_out", "cancelled", "retry_later", "lease_lost", "suspended", "waiting"
    ]
    output: Any = None
    error: dict[str, Any] | None = None
    failed_step_id: str | None = None
    retry_in_seconds: float = 0.0
    suspension: dict[str, Any] | None = None
    """For `suspended`: the paused call's identity, capability and reason (`Suspend.as_dict`); for
    `waiting`: what the step waits for (`Wait.as_dict`)."""
