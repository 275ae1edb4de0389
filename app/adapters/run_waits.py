"""The run's durable waits (`WaitPort`): each registration its own short transaction, durable when it
returns, so the wait row exists before the step raises `Wait` and the claim ends."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.persistence.base import utcnow
from app.persistence.models import Run, RunWait
from app.persistence.transaction import UnitOfWork
from app.registry.wait_ports import WaitState
from app.services.runs.limits import DispatchLimits
from app.services.runs.waits import WaitingRun, wait_service


def _state(row: RunWait | None, child_run_id: Any = None) -> WaitState:
    if row is None:
        return WaitState(satisfied=False, child_run_id=str(child_run_id) if child_run_id else None)
    child = row.child_run_id or child_run_id
    return WaitState(
        satisfied=row.satisfied_at is not None,
        due_at=row.due_at,
        outcome=row.outcome,
        child_run_id=str(child) if child else None,
    )


class RunWaits:
    """`ctx.ports.waits` for one claimed run."""

    def __init__(
        self, unit_of_work: UnitOfWork, run: Run, limits: DispatchLimits, *, max_wait_seconds: float
    ) -> None:
        self.unit_of_work = unit_of_work
        self.run = WaitingRun.of(run)
        self.limits = limits
        self.max_wait_seconds = max_wait_seconds

    def now(self) -> datetime:
        return utcnow()

    async def until(self, path: str, due_at: datetime) -> WaitState:
        async with self.unit_of_work() as session:
            return _state(await wait_service.time(session, self.run, path, due_at))

    async def event(
        self, path: str, *, event_type: str, filter: dict[str, Any] | None, due_at: datetime
    ) -> WaitState:
        async with self.unit_of_work() as session:
            row = await wait_service.event(
                session, self.run, path, event_type=event_type, filter=filter, due_at=due_at
            )
            return _state(row)

    async def child(self, path: str, *, automation_id: str, inputs: dict[str, Any], wait: bool) -> WaitState:
        # The child's wake-up leaves when this transaction commits, not when the parent's claim ends.
        async with self.unit_of_work() as session:
            row, child_id = await wait_service.child(
                session,
                self.run,
                path,
                automation_id=automation_id,
                inputs=inputs,
                wait=wait,
                limits=self.limits,
            )
            return _state(row, child_id)
