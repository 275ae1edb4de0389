"""How a step attempt ends other than with a result: the signals step code raises.

They live below the registry and the engine because both raise them: a built-in handler fails with
`StepError`; a pipeline rule fails a call with `StepError` or pauses the run with `Suspend`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class StepError(Exception):
    """A step attempt that failed; `retryable` says whether another attempt could do better."""

    def __init__(self, code: str, message: str, *, retryable: bool = True, details: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable
        self.details = details
        self.checkpoint: Any = None
        """What the step needs to continue where it paused (an agent's transcript), set on the way out."""

    def as_dict(self) -> dict[str, Any]:
        """The error as a step record stores it: code, message and details when there are any."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details is not None:
            error["details"] = self.details
        return error


@dataclass(frozen=True)
class CallId:
    """The stable identity of one capability call: the same call gets the same id when a step is replayed.

    `index` counts the calls of one step attempt in the order they are made, so a run resumed after a
    suspension meets the suspended call again under the same id and can execute it exactly once.
    Inside a loop the same step runs once per iteration: `path` (`fetch/3/classify`) tells those
    executions apart; it is None for a step outside any loop, whose path is its step id.
    """

    run_id: str
    step_id: str
    attempt: int
    index: int
    path: str | None = None

    @property
    def key(self) -> str:
        """One string for storage and lookups: `<run>/<step path>/<attempt>/<index>`."""
        return f"{self.run_id}/{self.path or self.step_id}/{self.attempt}/{self.index}"

    def as_dict(self) -> dict[str, Any]:
        identity: dict[str, Any] = {
            "run_id": self.run_id,
            "step_id": self.step_id,
            "attempt": self.attempt,
            "index": self.index,
        }
        if self.path is not None:
            identity["path"] = self.path
        return identity


class Suspend(BaseException):
    """A rule's decision to pause the run at this call until something outside decides (an approval).

    It derives from `BaseException`, like `asyncio.CancelledError`, so a handler's or an agent loop's
    `except Exception` cannot swallow it and turn a pause into a retried failure or a tool error.
    """

    def __init__(self, reason: str, *, call: CallId, capability_id: str, details: Any = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.call = call
        self.capability_id = capability_id
        self.details = details
        self.checkpoint: Any = None
        """What the step needs to continue where it paused (an agent's transcript), set on the way out."""

    def as_dict(self) -> dict[str, Any]:
        """What the step record keeps of the suspension (params stay with the later invocation row)."""
        record: dict[str, Any] = {
            "reason": self.reason,
            "capability": self.capability_id,
            "call": self.call.as_dict(),
        }
        if self.details is not None:
            record["details"] = self.details
        if self.checkpoint is not None:
            record["checkpoint"] = self.checkpoint
        return record


class Suppressed(BaseException):
    """A rule's decision not to send a call in a dry or verify run: what would have been called, with what.

    Like `Suspend` it is a `BaseException`, so no handler's `except Exception` turns it into a failure.
    The executor makes it the step's output (`as_output`), so later steps still render; an agent loop
    hands the same answer to the model as the tool's result.
    """

    def __init__(self, capability_id: str, params: Any, *, mode: str, reason: str) -> None:
        super().__init__(f"{capability_id} suppressed ({reason})")
        self.capability_id = capability_id
        self.params = params
        self.mode = mode
        self.reason = reason

    def as_output(self) -> dict[str, Any]:
        """What the suppressed call answers: that nothing was sent, and what would have been."""
        return {"dry_run": True, "would_call": self.capability_id, "params": self.params}

    def as_record(self) -> dict[str, Any]:
        """What the step record keeps of it (`run_steps.suppressed`)."""
        return {
            "capability": self.capability_id,
            "params": self.params,
            "mode": self.mode,
            "reason": self.reason,
        }


class Wait(BaseException):
    """A step's decision to pause the run until a time, an event or a child run's end (`wait`,
    `wait_for_event`, `call_automation`).

    The step has registered what it waits for before raising this (a durable row the wake-up finds);
    the run then waits holding no lease and no worker, and the next claim runs the same attempt again,
    which finds the wait satisfied (or not yet, and raises `Wait` again). Like `Suspend` it is a
    `BaseException`, so no `except Exception` turns a pause into a failure.
    """

    def __init__(self, kind: str, *, until: str | None = None, details: Any = None) -> None:
        super().__init__(f"waiting for {kind}")
        self.kind = kind
        self.until = until
        self.details = details

    def as_dict(self) -> dict[str, Any]:
        """What the step record keeps of the pause: what it waits for and until when."""
        wait: dict[str, Any] = {"kind": self.kind}
        if self.until is not None:
            wait["until"] = self.until
        if self.details is not None:
            wait["details"] = self.details
        return {"wait": wait}
