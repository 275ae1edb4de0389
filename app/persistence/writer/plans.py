"""Plans as data: what one status change of a run must write, decided by the transition's rules and
written by `PlanWriter`. Nothing here talks to the database."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from app.definitions.run_states import RunStatus, Transition
from app.persistence.models import DomainEvent, Run
from app.persistence.repositories.run_journal import StepEnd


@dataclass
class RunPlan:
    """One run's move along `edge`, and everything that must commit with it.

    The update takes only while the run is in `sources` (a subset of the edge's) and, with `attempt`,
    only while that claim holds it. `values` are the columns it writes besides the status. `step_end`
    rides in the same statement (written whether or not the update takes: it is the claim's own record).
    `event`, prepared by the event service, is inserted from the updated row (its payload is built
    there, in one place). `fail_suspended`: the run's suspended step records fail with this error in the
    same statement. `alone` says the rules expect no write of their own after it, so on an autocommit
    connection the plan may be one statement, refused (and then written in a transaction) when a
    consequence turns out to be due: a run waits queued, an endpoint listens, the run has a callback.
    """

    run_id: uuid.UUID
    edge: Transition
    sources: frozenset[RunStatus]
    values: dict[str, Any] = field(default_factory=dict)
    attempt: int | None = None
    step_end: StepEnd | None = None
    event: DomainEvent | None = None
    listening_types: tuple[str, ...] = ()
    fail_suspended: dict[str, Any] | None = None
    alone: bool = True

    def shape(self, *, alone: bool) -> PlanShape:
        """What the statement for this plan looks like, without the values (its cache key)."""
        return PlanShape(
            target=self.edge.target,
            sources=tuple(sorted(self.sources)),
            fenced=self.attempt is not None,
            columns=tuple(sorted(self.values)),
            with_end=self.step_end is not None,
            listening_types=self.listening_types,
            announce=self.event is not None,
            fail_suspended=self.fail_suspended is not None,
            alone=alone,
        )


@dataclass(frozen=True)
class PlanShape:
    """The statement a plan needs, as a hashable key: plans of one shape share one built statement."""

    target: RunStatus
    sources: tuple[RunStatus, ...]
    fenced: bool
    columns: tuple[str, ...]
    with_end: bool
    listening_types: tuple[str, ...]
    announce: bool
    fail_suspended: bool
    alone: bool


@dataclass(frozen=True)
class Written:
    """A plan that took: the run as written, and what its consequences need to know, read by the same
    statement (all False after a plan written alone: the statement refuses when one is true)."""

    run: Run
    queued_waiting: bool
    """A queued run existed: a promotion may be due."""
    endpoints_listening: bool
    """A webhook endpoint listens for the run's terminal event."""
    triggers_listening: bool
    """An enabled event trigger of the run's space listens for its terminal event."""
    alone: bool
    """Written as one statement on an autocommit connection: nothing may follow it but wake-ups."""
