"""Finishing a claim: the executor's outcome names an edge of the run-state table, and the move goes
through the one door (`app.services.runs.transition`) like every other status change.

On the claim's own connection the common finish is one autocommit statement (the update, the last
attempt's end and the terminal event together); a finish whose consequences write (deliveries, a
promotion) is a transaction on the same connection. The writer chooses, from the plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from app.definitions import run_states
from app.definitions.run_states import Transition
from app.engine.claim_ports import Outcome
from app.persistence.autocommit import AutocommitWrites
from app.persistence.models import Run
from app.persistence.repositories.run_journal import StepEnd
from app.persistence.types import AsyncSession
from app.services.runs.limits import DispatchLimits
from app.services.runs.moves import Move
from app.services.runs.transition import transition

# The executor's outcome -> the edge that records it. `lease_lost` has none: the claim is gone, and
# whoever holds the run now finishes it.
OUTCOME_TRANSITIONS: Mapping[str, Transition] = {
    "succeeded": run_states.SUCCEED,
    "failed": run_states.FAIL,
    "timed_out": run_states.TIME_OUT,
    "cancelled": run_states.STOP,
    "retry_later": run_states.RETRY_LATER,
    "suspended": run_states.SUSPEND,
    "waiting": run_states.WAIT,
}


def claim_end(
    run: Run, outcome: Outcome, limits: DispatchLimits, now: datetime, *, step_end: StepEnd | None = None
) -> Move | None:
    """The move that records how a claim ended, or None when there is nothing to record."""
    edge = OUTCOME_TRANSITIONS.get(outcome.status)
    if edge is None:
        return None
    return Move(run, edge, now, limits, held=True, outcome=outcome, step_end=step_end)


async def finish_claim(
    target: AsyncSession | AutocommitWrites,
    run: Run,
    outcome: Outcome,
    limits: DispatchLimits,
    now: datetime,
    *,
    step_end: StepEnd | None = None,
) -> Run | None:
    """Record how this claim ended; None when there is nothing to record or the claim was lost.

    `target`: the claim's connection (the worker: alone when the plan allows, else a transaction there)
    or a caller's transaction. `step_end`, the claim's last attempt end still to write, goes in the same
    statement (written even when the claim was lost). Wake-ups go to the caller's job scope.
    """
    move = claim_end(run, outcome, limits, now, step_end=step_end)
    if move is None:
        return None
    return await transition(target, move)
