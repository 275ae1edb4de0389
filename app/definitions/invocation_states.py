"""The invocation-state machine: every status a capability call's record can have, and the moves between.

A call is recorded once it ended (executed, failed, denied, suppressed) or when it pauses for a human
(pending). Only a paused call moves afterwards: a decision (approved, denied), an expiry, and the one
execution of an approved call, fenced by the claim's attempt (approved → executing → executed | failed).
Every writer of an invocation's status asks this table (`check`, `move`, `created`); in SQL the
conditional updates take their source status from the same edges.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol


class InvocationStatus(enum.StrEnum):
    pending = "pending"
    approved = "approved"
    executing = "executing"
    executed = "executed"
    denied = "denied"
    expired = "expired"
    failed = "failed"
    suppressed = "suppressed"


_S = InvocationStatus

# A call's record is written in one of these: the call ended, or it waits for a decision.
INITIAL: frozenset[InvocationStatus] = frozenset(
    {_S.pending, _S.executed, _S.failed, _S.denied, _S.suppressed}
)
TERMINAL: frozenset[InvocationStatus] = frozenset(
    {_S.executed, _S.failed, _S.denied, _S.expired, _S.suppressed}
)
# What a resumed claim must know about its own calls: still waiting, or decided and not yet run.
OPEN: frozenset[InvocationStatus] = frozenset({_S.pending, _S.approved, _S.executing})


@dataclass(frozen=True)
class InvocationEdge:
    """One named move of an invocation: where it may leave from, where it goes."""

    name: str
    source: InvocationStatus
    target: InvocationStatus


APPROVE = InvocationEdge("approve", _S.pending, _S.approved)
DENY = InvocationEdge("deny", _S.pending, _S.denied)
EXPIRE = InvocationEdge("expire", _S.pending, _S.expired)
START = InvocationEdge("start", _S.approved, _S.executing)
COMPLETE = InvocationEdge("complete", _S.executing, _S.executed)
FAIL = InvocationEdge("fail", _S.executing, _S.failed)

EDGES: tuple[InvocationEdge, ...] = (APPROVE, DENY, EXPIRE, START, COMPLETE, FAIL)


def _allowed_from() -> Mapping[InvocationStatus, frozenset[InvocationStatus]]:
    table: dict[InvocationStatus, frozenset[InvocationStatus]] = {status: frozenset() for status in _S}
    for edge in EDGES:
        table[edge.target] = table[edge.target] | {edge.source}
    return table


# target -> the statuses an invocation may reach it from.
ALLOWED_FROM: Mapping[InvocationStatus, frozenset[InvocationStatus]] = _allowed_from()


class InvocationTransitionRefused(Exception):
    """A move of an invocation the table does not allow: a bug in the caller, never a user's mistake."""

    def __init__(self, source: InvocationStatus | None, target: InvocationStatus) -> None:
        self.source, self.target = source, target
        if source is None:
            allowed = ", ".join(sorted(INITIAL))
            message = f"an invocation cannot be recorded {target.value} (a new record is one of: {allowed})"
        else:
            allowed = ", ".join(sorted(ALLOWED_FROM[target])) or "nothing: it is only an initial state"
            message = (
                f"an invocation cannot move from {source.value} to {target.value} (allowed from: {allowed})"
            )
        super().__init__(message)


def is_allowed(source: InvocationStatus | None, target: InvocationStatus) -> bool:
    """Whether the table allows this move; `source` None means writing the record."""
    if source is None:
        return target in INITIAL
    return source in ALLOWED_FROM[target]


def check(source: str | None, target: str) -> InvocationStatus:
    """The target as a status, or `InvocationTransitionRefused` unless the table allows this move.

    Statuses arrive as the strings the column and the engine's records hold; an unknown one is refused
    as well (`ValueError`)."""
    source_status = InvocationStatus(source) if source is not None else None
    target_status = InvocationStatus(target)
    if not is_allowed(source_status, target_status):
        raise InvocationTransitionRefused(source_status, target_status)
    return target_status


def created(status: str) -> InvocationStatus:
    """The status of a record being written, checked against the statuses a record may start in."""
    return check(None, status)


class HasInvocationStatus(Protocol):
    """Anything with an invocation's status: the ORM row, or a stand-in in tests."""

    status: str


def move(invocation: HasInvocationStatus, edge: InvocationEdge) -> None:
    """Change a loaded invocation's status in memory (the caller flushes), refusing what the table
    forbids."""
    check(invocation.status, edge.target)
    invocation.status = edge.target
