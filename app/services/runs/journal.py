"""The executor's journal for one claim: step records, cancellation and lease checks.

Every record is one statement on the claim's autocommit connection (`AutocommitWrites`), durable when
it returns: the stop check is part of beginning an attempt, and an attempt's end rides with the next
statement (the next begin, the plan's failure, a stop check) or with the claim's finish, before the
run does anything that builds on it.

The iterations of a loop record concurrently: the journal's writes take turns, and every attempt end
waits in a list until a write carries it (the last one inside that write's statement, any others as
statements of their own just before), so no end replaces another.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import datetime
from typing import Any

from app import metrics
from app.definitions.run_states import RunStatus
from app.definitions.signals import CallId
from app.engine.claim_ports import ClaimLost, Phase, StepAt, StopRequested
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
        suspended: dict[tuple[str, str, int], tuple[uuid.UUID, datetime]] | None = None,
        *,
        deadline: datetime | None = None,
    ) -> None:
        self.writes = writes
        self.run_id = run_id
        self.attempt = attempt
        self.lease_lost = False
        # The keys of calls this claim asked a human about and then lost the run before pausing on.
        self.unheeded_calls: list[str] = []
        # (phase, path, attempt) -> (record, started at) of an attempt an earlier claim suspended.
        self.suspended = dict(suspended or {})
        # The run's deadline while the database does not hold it yet: written with the first begin.
        self.unsaved_deadline = deadline
        # Record id -> (action, started at) of attempts this claim began or continued.
        self._started: dict[uuid.UUID, tuple[str, datetime]] = {}
        # Attempt ends not written yet, oldest first (concurrent iterations each leave theirs).
        self._ended: list[StepEnd] = []
        self._turn = asyncio.Lock()

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[tuple[RunJournalRepository, StepEnd | None]]:
        """One write of the journal, in turn: the pending ends but the last are written first; the last
        is handed to the block to ride in its statement. They wait again if the block fails."""
        async with self._turn:
            pending, self._ended = self._ended, []
            try:
                async with self.writes() as session:
                    steps = RunJournalRepository(session)
                    for end in pending[:-1]:
                        await steps.end(end)
                    yield steps, pending[-1] if pending else None
            except BaseException:
                self._ended[:0] = pending
                raise

    async def take_ended(self) -> StepEnd | None:
        """The last attempt end not yet written, for the claim's finish to record in its own statement;
        any earlier pending ends are written first."""
        async with self._turn:
            pending, self._ended = self._ended, []
            if len(pending) > 1:
                async with self.writes() as session:
                    steps = RunJournalRepository(session)
                    for end in pending[:-1]:
                        await steps.end(end)
            return pending[-1] if pending else None

    async def flush(self) -> None:
        """Write the attempt ends still pending (a claim that ends without a finish)."""
        ended = await self.take_ended()
        if ended is not None:
            async with self.writes() as session:
                await RunJournalRepository(session).end(ended)

    async def begin_step(self, phase: Phase, at: StepAt, attempt: int) -> uuid.UUID:
        if self.lease_lost:
            raise ClaimLost()
        now = utcnow()
        resumed = self.suspended.pop((phase, at.path, attempt), None)
        record_id = resumed[0] if resumed is not None else uuid.uuid4()
        record = {
            "id": record_id,
            "run_id": self.run_id,
            "phase": phase,
            "step_index": at.index,
            "path": at.path,
            "step_id": at.step_id,
            "action": at.action,
            "attempt": attempt,
            "status": "running",
            "started_at": now,
        }
        async with self._write() as (steps, previous):
            cancelled = await steps.begin(
                record,
                attempt=self.attempt,
                # The attempt that suspended continues: same record, same attempt, same call ids.
                resumed=resumed is not None,
                previous=previous,
                deadline=self.unsaved_deadline,
            )
        if cancelled is None:
            raise ClaimLost()
        self.unsaved_deadline = None
        if cancelled:
            if resumed is not None:
                self.suspended[(phase, at.path, attempt)] = resumed
            raise StopRequested("cancelled")
        self._started[record_id] = (at.action, resumed[1] if resumed is not None else now)
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
        self._ended.append(end)

    async def suspend_step(self, record: Any, *, config: Any, suspension: dict[str, Any]) -> None:
        """Record the pause, the resume point of a later claim, only while this claim holds the run.

        A lost claim's pause is not written (the claim that took the run over decides how the step goes
        on); the call it asked a human about is left in `unheeded_calls` for the claim's end to withdraw.
        """
        end = self._end(record, "suspended")
        end.values["config"] = for_display(config) if config is not None else None
        end.values["suspension"] = redact(suspension)
        async with self._write() as (steps, previous):
            if previous is not None:
                await steps.end(previous)
            held = await steps.suspend(end, run_id=self.run_id, attempt=self.attempt)
        if not held:
            call = suspension.get("call")
            if isinstance(call, dict):
                self.unheeded_calls.append(CallId(**call).key)
            raise ClaimLost()

    async def fix_items(self, record: Any, items: list[Any]) -> None:
        """Record the list the loop of `record` iterates, in full: a later claim continues the loop over
        it. The executor hands it over scrubbed of the run's secrets; raises `ClaimLost` when the claim
        no longer holds the run."""
        async with self._write() as (steps, previous):
            if previous is not None:
                await steps.end(previous)
            held = await steps.fix_items(record, items, run_id=self.run_id, attempt=self.attempt)
        if not held:
            raise ClaimLost()

    async def plan_failed(self, step_id: str, error: dict[str, Any]) -> None:
        async with self._write() as (steps, previous):
            held = await steps.fail_plan(self.run_id, self.attempt, step_id, redact(error), previous)
        if not held:
            raise ClaimLost()

    async def stop_reason(self) -> str | None:
        if self.lease_lost:
            return "lease_lost"
        async with self._write() as (steps, previous):
            state = await steps.stop_state(self.run_id, previous)
        if state is None:
            return "lease_lost"
        attempt, status, cancel_requested = state
        if attempt != self.attempt or status is not RunStatus.running:
            return "lease_lost"
        return "cancelled" if cancel_requested else None
