"""The one door for a run's status changes after its creation.

`transition(target, move)` checks the move against the run-state table, lets the ordered rules of
`RUN_POLICY` turn it into a plan (the update's columns, the terminal event, whether it may be written
alone), hands the plan to the one writer (`app.persistence.writer`), and once it took applies the rules'
consequences on the session that wrote it. A claim's end, a cancel, an approval's resume or expiry and
recovery of an expired lease all go through it; the claim itself goes through `claim`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from app import metrics
from app.definitions import run_states
from app.persistence.autocommit import AutocommitWrites
from app.persistence.models import Run
from app.persistence.repositories.run_claims import ClaimedRun
from app.persistence.repositories.runs import RunRepository
from app.persistence.types import AsyncSession
from app.persistence.writer import RunPlan, Written, plan_writer

# The policy's promotion rule moves runs through this door: each side imports the other's module.
from app.services.runs import move_rules
from app.services.runs.moves import Move, MoveRule


def plan_of(move: Move, policy: Sequence[MoveRule] | None = None) -> RunPlan:
    """What the move writes, from every rule acting on its target, in order.

    Refuses (`TransitionRefused`) a move the table does not allow from the status the mover knows, and
    sources the edge does not leave from.
    """
    policy = move_rules.RUN_POLICY if policy is None else policy
    sources = move.leaving_from()
    if move.run.status not in move.edge.sources or not sources <= move.edge.sources:
        raise run_states.TransitionRefused(move.run.status, move.edge.target, move.edge)
    plan = RunPlan(
        run_id=move.run.id,
        edge=move.edge,
        sources=sources,
        attempt=move.run.attempt if move.held else None,
        step_end=move.step_end,
    )
    for rule in policy:
        if move.target in rule.applies_to:
            rule.plan(move, plan)
    move.plan = plan
    return plan


async def transition(
    target: AsyncSession | AutocommitWrites, move: Move, policy: Sequence[MoveRule] | None = None
) -> Run | None:
    """Apply `move`: on a caller's session, in its transaction; on a claim's connection (`AutocommitWrites`),
    as one statement when the plan allows it, else a transaction there. Answers the run as written, or
    None when the run was no longer where the move leaves from (a lost claim, a run that moved on)."""
    policy = move_rules.RUN_POLICY if policy is None else policy
    plan = plan_of(move, policy)
    acting = [rule for rule in policy if move.target in rule.applies_to]

    async def follow(session: AsyncSession, written: Written) -> None:
        for rule in acting:
            await rule.follow(session, move, written)

    if isinstance(target, AutocommitWrites):
        written = await plan_writer.on_claim(target, plan, follow)
    else:
        written = await plan_writer.in_transaction(target, plan, follow)
    return written.run if written is not None else None


@dataclass(frozen=True)
class NextPending:
    """What a claim takes when it names no run: the next pending run of these queues, highest priority
    then oldest first, that no other claim holds (a worker's direct claim, with no broker message)."""

    queues: tuple[str, ...]


async def claim(
    session: AsyncSession, which: uuid.UUID | NextPending, worker: str, lease: timedelta, now: datetime
) -> ClaimedRun | None:
    """The `claim` edge: one conditional update taking a pending run (or one whose lease expired), with
    what the executor needs read by the same statement; then the wait metric. `which` names the run (its
    wake-up's), or asks for the next pending one of some queues (only a pending run is taken then)."""
    runs = RunRepository(session)
    if isinstance(which, NextPending):
        claimed = await runs.claim_next_with_context(which.queues, worker, lease, now)
    else:
        claimed = await runs.claim_with_context(which, worker, lease, now)
    if claimed is not None:
        run = claimed.run
        waited_since = run.enqueued_at or run.created_at
        metrics.run_started((now - waited_since).total_seconds() if waited_since else None)
    return claimed
