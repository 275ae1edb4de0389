"""Registering a step's durable wait, and starting a child run (`call_automation`), exactly once per
(run, step path).

The wait row and, for a child, the child run are written in one transaction: after a crash either both
exist (the re-run finds the row and its child) or neither does (the re-run writes both). The child's
idempotency key, derived from the parent run and the path, holds the same line inside the fire path.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.definitions.run_states import RunStatus
from app.definitions.signals import StepError
from app.engine.filters import FilterError, compile_filter
from app.errors import AppError
from app.persistence.base import utcnow
from app.persistence.models import Run, RunWait
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.repositories.run_waits import RunWaitRepository
from app.persistence.repositories.runs import RunRepository
from app.persistence.types import AsyncSession
from app.services.runs.dispatch import dispatcher
from app.services.runs.fire_request import FireRequest, ParentLink
from app.services.runs.limits import DispatchLimits

MAX_CHILD_DEPTH = 5


@dataclass(frozen=True)
class WaitingRun:
    """What registering needs of the waiting run (a claimed run's columns)."""

    id: uuid.UUID
    space_id: uuid.UUID
    depth: int
    chain_depth: int
    mode: str
    llm_mode: str
    definition: dict[str, Any]

    @classmethod
    def of(cls, run: Run) -> WaitingRun:
        return cls(
            run.id, run.space_id, run.depth or 0, run.chain_depth or 0, run.mode, run.llm_mode, run.definition
        )


def child_key(parent_run_id: uuid.UUID, path: str) -> str:
    """The idempotency key of the child a step starts: one child per (parent run, step path)."""
    return f"parent:{parent_run_id}:{path}"


class WaitService:
    async def time(self, session: AsyncSession, run: WaitingRun, path: str, due_at: datetime) -> RunWait:
        values: dict[str, Any] = {
            "space_id": run.space_id,
            "run_id": run.id,
            "path": path,
            "kind": "time",
            "due_at": due_at,
        }
        now = utcnow()
        if due_at <= now:
            # A time already past is written satisfied: no tick needs to find it, nor wake a run that
            # goes on at once.
            values.update(satisfied_at=now, outcome={"due": True})
        return await RunWaitRepository(session).register(values)

    async def event(
        self,
        session: AsyncSession,
        run: WaitingRun,
        path: str,
        *,
        event_type: str,
        filter: dict[str, Any] | None,
        due_at: datetime,
    ) -> RunWait:
        if filter:
            try:
                compile_filter(filter)
            except FilterError as exc:
                raise StepError("invalid_filter", str(exc), retryable=False) from None
        return await RunWaitRepository(session).register(
            {
                "space_id": run.space_id,
                "run_id": run.id,
                "path": path,
                "kind": "event",
                "event_type": event_type,
                "filter": filter or None,
                "due_at": due_at,
            }
        )

    async def child(
        self,
        session: AsyncSession,
        run: WaitingRun,
        path: str,
        *,
        automation_id: str,
        inputs: dict[str, Any],
        wait: bool,
        limits: DispatchLimits,
    ) -> tuple[RunWait | None, uuid.UUID]:
        """Start the child run of (run, path) unless it was started already; with `wait`, the wait row
        for its end (child_run_id set). Answers the wait row (None without `wait`) and the child's id."""
        waits = RunWaitRepository(session)
        existing = await waits.find(run.id, path) if wait else None
        if existing is not None and existing.child_run_id is not None:
            return existing, existing.child_run_id
        if run.depth + 1 > MAX_CHILD_DEPTH:
            raise StepError(
                "depth_exceeded",
                f"a child run would be {run.depth + 1} levels deep; at most {MAX_CHILD_DEPTH} are allowed",
                retryable=False,
            )
        automation = await self._automation(session, run, automation_id)
        request = FireRequest(
            trigger_type="parent",
            payload={
                "parent_run_id": str(run.id),
                "parent_path": path,
                # The parent's budget left now caps what the child may spend (see `child_budget`).
                "budget_cap_usd": await self._budget_left(session, run),
            },
            inputs=inputs,
            idempotency_key=child_key(run.id, path),
            chain_depth=run.chain_depth,
            mode=run.mode,  # type: ignore[arg-type]
            llm=run.llm_mode,  # type: ignore[arg-type]
            parent=ParentLink(run_id=run.id, path=path, depth=run.depth + 1),
        )
        try:
            fired = await dispatcher.fire(session, (automation, request), limits)
        except AppError as exc:
            raise StepError(exc.code, f"the child run was refused: {exc.message}", retryable=False) from None
        child = fired.run
        if child.status is RunStatus.dropped:
            raise StepError(
                "child_failed",
                f"the child run {child.id} was dropped: {child.reason}",
                retryable=False,
                details={"run_id": str(child.id), "status": "dropped", "error": {"message": child.reason}},
            )
        if not wait:
            return None, child.id
        row = await waits.register(
            {
                "space_id": run.space_id,
                "run_id": run.id,
                "path": path,
                "kind": "child",
                "child_run_id": child.id,
            }
        )
        if row.child_run_id is None:
            await waits.attach_child(row.id, child.id)
            row = await waits.at(run.id, path, fresh=True)
        return row, child.id

    async def _automation(self, session: AsyncSession, run: WaitingRun, automation_id: str) -> Any:
        try:
            wanted = uuid.UUID(automation_id)
        except ValueError:
            wanted = None
        automation = (
            await AutomationRepository(session).get_in_space(run.space_id, wanted)
            if wanted is not None
            else None
        )
        if automation is None:
            raise StepError(
                "automation_not_found", f"no automation {automation_id!r} in this space", retryable=False
            )
        return automation

    async def _budget_left(self, session: AsyncSession, run: WaitingRun) -> float | None:
        cap = (run.definition.get("execution") or {}).get("budget_cap_usd")
        if cap is None:
            return None
        spent, _ = await RunRepository(session).spend_of(run.id)
        return max(0.0, float(cap) - float(spent))


def child_budget(own_cap: float | None, run: Run) -> float | None:
    """A run's effective budget cap: its own policy's, and for a child run no more than what its parent
    had left when the child started (the child's spend counts against the parent's budget when it ends)."""
    if run.parent_run_id is None or not isinstance(run.trigger_payload, dict):
        return own_cap
    inherited = run.trigger_payload.get("budget_cap_usd")
    if not isinstance(inherited, int | float):
        return own_cap
    return float(inherited) if own_cap is None else min(own_cap, float(inherited))


wait_service = WaitService()
