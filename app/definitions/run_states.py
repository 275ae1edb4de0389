"""The run-state machine: every status a run can have and every move between them, as one table.

Code never assigns a run's status as a bare string: in Python it calls `move(run, target)`, which refuses
a move the table does not allow; in SQL the claim and finish updates, the recovery query and the cancel
request take their status sets from the same named transitions. Adding a state or an edge is a change
here, and the unit tests that enumerate every pair show what it allows.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol


class RunStatus(enum.StrEnum):
    queued = "queued"
    pending = "pending"
    running = "running"
    awaiting_approval = "awaiting_approval"
    waiting = "waiting"
    succeeded = "succeeded"
    failed = "failed"
    cancelled = "cancelled"
    timed_out = "timed_out"
    dropped = "dropped"


S = RunStatus

# A fire creates its run directly in one of these: admitted, held back, or refused with a reason.
INITIAL: frozenset[RunStatus] = frozenset({S.queued, S.pending, S.dropped})
TERMINAL: frozenset[RunStatus] = frozenset({S.succeeded, S.failed, S.cancelled, S.timed_out, S.dropped})
# Runs that hold a worker or are about to: what the global cap (AUTOMATIONS_MAX_CONCURRENT_RUNS) counts.
HOLDS_SLOT: frozenset[RunStatus] = frozenset({S.pending, S.running})
# Admitted and not finished. A run awaiting approval or waiting (a durable wait, an event, a child run)
# holds no worker and no slot, but the next run of a serial automation (`queue`, `drop_if_running`) still
# waits for it.
UNDER_WAY: frozenset[RunStatus] = frozenset({S.pending, S.running, S.awaiting_approval, S.waiting})
# What an automation's concurrency policy counts at fire time: under way, or queued before this fire.
IN_FLIGHT: frozenset[RunStatus] = UNDER_WAY | {S.queued}


@dataclass(frozen=True)
class Transition:
    """One named edge of the machine: the statuses it leaves from, the one it reaches, who makes it."""

    name: str
    sources: frozenset[RunStatus]
    target: RunStatus
    performed_by: str


def _edge(name: str, sources: set[RunStatus], target: RunStatus, performed_by: str) -> Transition:
    return Transition(name, frozenset(sources), target, performed_by)


PROMOTE = _edge("promote", {S.queued}, S.pending, "the promoter, when a run finishes and on beat's tick")
# From running only when the lease has expired (the repository's claim adds that condition).
CLAIM = _edge("claim", {S.pending, S.running}, S.running, "a worker, with one conditional update")
RETRY_LATER = _edge("retry_later", {S.running}, S.pending, "the worker, for a backoff too long to sleep")
RELEASE = _edge("release", {S.running}, S.pending, "recovery on beat's tick, when a lease has expired")
SUSPEND = _edge("suspend", {S.running}, S.awaiting_approval, "the worker, when a call needs a human")
RESUME = _edge("resume", {S.awaiting_approval}, S.pending, "an approval decision")
# The claim's WAIT goes to pending instead when a wake-up came while the run was still running
# (`wake_requested`): one conditional update, so no wake-up is lost between a wait's registration and
# the end of the claim that registered it.
WAIT = _edge("wait", {S.running}, S.waiting, "the worker, when a step waits for a time, an event or a child")
WAKE = _edge("wake", {S.waiting}, S.pending, "the due-time tick, a matching event, a child run's end")
SUCCEED = _edge("succeed", {S.running}, S.succeeded, "the worker, after the last step")
FAIL = _edge("fail", {S.running, S.awaiting_approval}, S.failed, "the worker; a denied or expired approval")
TIME_OUT = _edge("time_out", {S.running}, S.timed_out, "the worker, when the run's deadline passes")
# Nobody holds these runs, so a cancel request finishes them at once.
CANCEL = _edge(
    "cancel", {S.queued, S.pending, S.awaiting_approval, S.waiting}, S.cancelled, "the cancel request itself"
)
# A running run is only asked to stop (`cancel_requested`); its worker stops at the next step boundary.
STOP = _edge("stop", {S.running}, S.cancelled, "the worker, after a cancel request")

TRANSITIONS: tuple[Transition, ...] = (
    PROMOTE,
    CLAIM,
    RETRY_LATER,
    RELEASE,
    SUSPEND,
    RESUME,
    WAIT,
    WAKE,
    SUCCEED,
    FAIL,
    TIME_OUT,
    CANCEL,
    STOP,
)


def _allowed_from() -> Mapping[RunStatus, frozenset[RunStatus]]:
    table: dict[RunStatus, frozenset[RunStatus]] = {status: frozenset() for status in RunStatus}
    for edge in TRANSITIONS:
        table[edge.target] = table[edge.target] | edge.sources
    return table


# target -> the statuses a run may reach it from.
ALLOWED_FROM: Mapping[RunStatus, frozenset[RunStatus]] = _allowed_from()


class TransitionRefused(Exception):
    """A move the table does not allow: a bug in the caller, never a user's mistake."""

    def __init__(
        self, source: RunStatus | None, target: RunStatus, transition: Transition | None = None
    ) -> None:
        self.source, self.target = source, target
        if transition is not None:
            leaves = ", ".join(sorted(transition.sources))
            message = (
                f"the {transition.name} transition cannot take a run from {source} (only from: {leaves})"
            )
        elif source is None:
            allowed = ", ".join(sorted(INITIAL))
            message = f"a run cannot be created {target.value} (a new run is one of: {allowed})"
        else:
            allowed = ", ".join(sorted(ALLOWED_FROM[target])) or "nothing: it is only an initial state"
            message = f"a run cannot move from {source.value} to {target.value} (allowed from: {allowed})"
        super().__init__(message)


def is_allowed(source: RunStatus | None, target: RunStatus) -> bool:
    """Whether the table allows this move; `source` None means creating the run."""
    if source is None:
        return target in INITIAL
    return source in ALLOWED_FROM[target]


def check(source: RunStatus | None, target: RunStatus) -> None:
    """Raise `TransitionRefused` unless the table allows this move."""
    if not is_allowed(source, target):
        raise TransitionRefused(source, target)


class HasStatus(Protocol):
    """Anything with a run's status: the ORM row, or a stand-in in tests."""

    status: RunStatus


def initial(target: RunStatus) -> RunStatus:
    """The status of a run being created, checked against the statuses a run may start in."""
    check(None, target)
    return target


def move(run: HasStatus, target: RunStatus) -> None:
    """Change a loaded run's status in memory (the caller flushes), refusing what the table forbids."""
    check(run.status, target)
    run.status = target
