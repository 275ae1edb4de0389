"""The wait port a handler's context offers: the run's durable waits for a time, an event or a child run
(`wait`, `wait_for_event`, `call_automation`), kept by the worker's adapter."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol


@dataclass(frozen=True)
class WaitState:
    """A step's durable wait as its port answers it: satisfied yet, and with what (`outcome`: the matched
    event, `{"timed_out": true}`, `{"due": true}` or a child's `{status, output, error}`)."""

    satisfied: bool
    due_at: datetime | None = None
    outcome: Any = None
    child_run_id: str | None = None


class WaitPort(Protocol):
    """The run's durable waits, one per step path (registering the same path again answers the wait an
    earlier attempt registered: a re-run never duplicates one). Refusals raise `StepError`."""

    max_wait_seconds: float
    """The longest a step may wait (`AUTOMATIONS_MAX_WAIT_SECONDS`)."""

    def now(self) -> datetime: ...

    async def until(self, path: str, due_at: datetime) -> WaitState:
        """Wait for a time."""
        ...

    async def event(
        self, path: str, *, event_type: str, filter: dict[str, Any] | None, due_at: datetime
    ) -> WaitState:
        """Wait for an event of the run's space published from now on, matching `filter`, until `due_at`."""
        ...

    async def child(self, path: str, *, automation_id: str, inputs: dict[str, Any], wait: bool) -> WaitState:
        """Start a child run of an automation of the run's space, exactly once per path; with `wait`,
        register the wait for its end."""
        ...
