"""A proposed status change of a run (`Move`) and the shape of the rules that follow an edge.

A rule acts on the target statuses in its `applies_to`: `plan` adds what must be written with the status
change to the plan (columns, the terminal event, whether it may be written alone), and `follow` does what
must happen once the plan took, on the session that wrote it: deliveries, a promotion, a wake-up, a metric.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from app.definitions.run_states import RunStatus, Transition
from app.engine.claim_ports import Outcome
from app.persistence.models import Run
from app.persistence.repositories.run_journal import StepEnd
from app.persistence.types import AsyncSession
from app.persistence.writer import RunPlan, Written
from app.services.runs.limits import DispatchLimits


@dataclass
class Move:
    """One proposed change: which run (as its mover loaded or claimed it), along which edge, and why.

    `held`: the mover is the claim holding the run (the update is fenced by its attempt, from `running`);
    otherwise the run must be in one of `sources` (default: every status the edge leaves from).
    """

    run: Run
    edge: Transition
    now: datetime
    limits: DispatchLimits
    held: bool = False
    sources: frozenset[RunStatus] | None = None
    outcome: Outcome | None = None
    """The executor's outcome, for a claim's end."""
    error: dict[str, Any] | None = None
    """The failure to record when no outcome carries one (an expired approval)."""
    failed_step_id: str | None = None
    """The step whose paused call ended the run (an expired approval): its suspended records fail."""
    reason: str | None = None
    """Why the run ended this way, shown on the run (a cancel's reason is fixed by its rule)."""
    step_end: StepEnd | None = None
    """The claim's last attempt end, written by the same statement."""
    plan: RunPlan | None = field(default=None, repr=False)
    """What the rules decided to write (set by `transition`)."""

    @property
    def target(self) -> RunStatus:
        return self.edge.target

    def leaving_from(self) -> frozenset[RunStatus]:
        """The statuses the update may take the run from."""
        if self.held:
            return frozenset({RunStatus.running})
        return self.sources if self.sources is not None else self.edge.sources


class MoveRule(Protocol):
    name: str
    applies_to: frozenset[RunStatus]
    """The target statuses this rule acts on."""

    def plan(self, move: Move, plan: RunPlan) -> None:
        """Add what this rule writes with the status change."""
        ...

    async def follow(self, session: AsyncSession, move: Move, written: Written) -> None:
        """What follows once the plan took, on the session that wrote it."""
        ...


class Rule:
    """No-op hooks, so a rule writes only the one it needs."""

    def plan(self, move: Move, plan: RunPlan) -> None:
        return None

    async def follow(self, session: AsyncSession, move: Move, written: Written) -> None:
        return None
