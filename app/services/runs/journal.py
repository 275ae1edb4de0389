"""The executor's journal for one claim: step records, cancellation and lease checks.

Every record is one statement on the claim's autocommit connection (`AutocommitWrites`), durable when
it returns: the stop check is part of beginning an attempt, and an attempt's end rides with the next
statement (the next begin, the plan's failure, a stop check) or with the claim's finish, before the
run does anything that builds on it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Any

from app import metrics
from app.definitions.automation import Step
from app.definitions.run_states import RunStatus
from app.definitions.signals import CallId
from app.engine.claim_ports import ClaimLost, Phase, StopRequested
from app.persistence.base import utcnow
from app.persistence.repositories.run_journal import RunJournalRepository, StepEnd
from app.persistence.types import AsyncSession
from app.security.redaction import redact
from app.services.runs.move_rules import for_display

Writes = Callable[[], AbstractAsyncContextManager[AsyncSession]]
"""One durable statement per block (`AutocommitWrites.write`)."""


class RunJournal:
    """Step records of one claim (`attempt`) of a run, written through `writes`."""

    def __init__(
        self,
        writes: Writes,
        run_id: uuid.UUID,
        attempt: int,
        suspended: dict[tuple[str, int, int], tuple[uuid.UUID, datetime]] | None = None,
        *,
        deadline: datetime | None = None,
    ) -> None:
        self.writes = writes
        self.run_id = run_id
        self.attempt = attempt
        self.lease_lost = False
        # The key of a call this claim asked a human about and then lost the run before pausing on.
        self.unheeded_call: str | None = None
        # (phase, step index, attempt) -> (record, started at) of an attempt an earlier claim suspended.
        self.suspended = dict(suspended or {})
        # The run's deadline while the database does not hold it yet: written with the first begin.
        self.unsaved_deadline = deadline
        # Record id -> (action, started at) of attempts this claim began or continued.
        self._started: dict[uuid.UUID, tuple[str, datetime]] = {}
        self._ended: StepEnd | None = None

    def take_ended(self) -> StepEnd | None:
        """The attempt end not yet written (the claim's finish records it in its own statement)."""
        ended, self._ended = self._ended, None
        return ended

    async def flush(self) -> None:
        """Write an attempt end that is still pending (a claim that ends without a finish)."""
        ended = self.take_ended()
        if ended is not None:
            async with self.writes() as session:
                await RunJournalRepository(session).end(ended)

    async def begin_step(self, phase: Phase, index: int, step: Step, attempt: int) -> uuid.UUID:
        if self.lease_lost:
            raise ClaimLost()
        now = utcnow()
        resumed = self.suspended.pop((phase, index, attempt), None)
        record_id = resumed[0] if resumed is not None else uuid.uuid4()
        record = {
            "id": record_id,
            "run_id": self.run_id,
            "phase": phase,
            "step_index": index,
            "step_id": step.step_id,
            "action": step.action,
            "attempt": attempt,
            "status": "running",
            "started_at": now,
        }
        async with self.writes() as session:
            cancelled = await RunJournalRepository(session).begin(
                record,
                attempt=self.attempt,
                # The attempt that suspended continues: same record, same attempt, same call ids.
                resumed=resumed is not None,
                previous=self._ended,
                deadline=self.unsaved_deadline,
            )
        self._ended = None
        if cancelled is None:
            raise ClaimLost()
        self.unsaved_deadline = None
        if cancelled:
            if resumed is not None:
                self.suspended[(phase, index, attempt)] = resumed
            raise StopRequested("cancelled")
        self._started[record_id] = (step.action, resumed[1] if resumed is not None else now)
        return record_id

    def _end(self, record: Any, status: str) -> StepEnd:
        action, started = self._started.pop(record)
        finished = utcnow()
        duration_ms = int((finished - started).total_seconds() * 1000)
        metrics.step_finished(action, status, duration_ms / 1000)
        return StepEnd(record, {"status": status, "finished_at": finished, "duration_ms": duration_ms})

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
        end = self._end(record, status)
        end.values["config"] = for_display(config) if config is not None else None
        if status == "succeeded":
            # The executor hands over the output already through `redact` (what it bound for later
            # steps), so the full copy kept for resume is scrubbed like the display one.
            end.values["output"] = for_display(output)
            end.values["output_full"] = output
        end.values["error"] = redact(error) if error else None
        end.values["suppressed"] = for_display(suppressed) if suppressed else None
        self._ended = end

    async def suspend_step(self, record: Any, *, config: Any, suspension: dict[str, Any]) -> None:
        """Record the pause, the resume point of a later claim, only while this claim holds the run.

        A lost claim's pause is not written (the claim that took the run over decides how the step goes
        on); the call it asked a human about is left in `unheeded_call` for the claim's end to withdraw.
        """
        end = self._end(record, "suspended")
        end.values["config"] = for_display(config) if config is not None else None
        end.values["suspension"] = redact(suspension)
        previous = self.take_ended()
        async with self.writes() as session:
            steps = RunJournalRepository(session)
            if previous is not None:
                await steps.end(previous)
            held = await steps.suspend(end, run_id=self.run_id, attempt=self.attempt)
        if not held:
            call = suspension.get("call")
            self.unheeded_call = CallId(**call).key if isinstance(call, dict) else None
            raise ClaimLost()

    async def plan_failed(self, step_id: str, error: dict[str, Any]) -> None:
        async with self.writes() as session:
            held = await RunJournalRepository(session).fail_plan(
                self.run_id, self.attempt, step_id, redact(error), self._ended
            )
        self._ended = None
        if not held:
            raise ClaimLost()

    async def stop_reason(self) -> str | None:
        if self.lease_lost:
            return "lease_lost"
        async with self.writes() as session:
            state = await RunJournalRepository(session).stop_state(self.run_id, self._ended)
        self._ended = None
        if state is None:
            return "lease_lost"
        attempt, status, cancel_requested = state
        if attempt != self.attempt or status is not RunStatus.running:
            return "lease_lost"
        return "cancelled" if cancel_requested else None
