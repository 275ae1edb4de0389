"""Post-commit job buffer.

Use-cases call `enqueue(...)` while they work; nothing leaves the process until the owner of the
transaction commits and calls `flush(...)`. A rollback calls `reset()`, so no worker ever sees a
job about a row that was never committed.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Job:
    """A task to send after commit: its registered name, arguments and routing options."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    queue: str | None = None
    countdown: float | None = None


Sender = Callable[[Job], None]
AsyncSender = Callable[[Job], Awaitable[object]]
"""A sender for an event loop: it awaits the broker instead of blocking on it (what it answers is its
own: the broker's publisher says whether it pushed or coalesced)."""

logger = logging.getLogger(__name__)

_buffer: ContextVar[list[Job] | None] = ContextVar("automations_job_buffer", default=None)


class NoJobScope(RuntimeError):
    """`enqueue` was called outside a transaction scope that would flush it."""


@contextmanager
def job_scope() -> Iterator[list[Job]]:
    """Open a buffer for the current transaction; it is discarded when the scope ends."""
    token = _buffer.set([])
    try:
        jobs = _buffer.get()
        assert jobs is not None
        yield jobs
    finally:
        _buffer.reset(token)


def enqueue(
    name: str, *args: Any, queue: str | None = None, countdown: float | None = None, **kwargs: Any
) -> None:
    """Record a job to send once the current transaction commits (`countdown`: seconds to hold it)."""
    jobs = _buffer.get()
    if jobs is None:
        raise NoJobScope(f"enqueue({name!r}) outside a job scope: it would never be sent")
    jobs.append(Job(name=name, args=args, kwargs=kwargs, queue=queue, countdown=countdown))


def pending() -> list[Job]:
    """The jobs recorded so far in the current scope (empty outside a scope)."""
    return list(_buffer.get() or [])


def flush(send: Sender) -> int:
    """Send every buffered job (call right after commit) and empty the buffer; answer how many went out.

    A job that cannot be sent (broker down) is logged, not raised: the commit already happened, and
    every job is a wake-up for state the database holds, which recovery sends again. Raising here
    would tell the caller its request failed when it did not.
    """
    jobs = _buffer.get()
    if not jobs:
        return 0
    sent = 0
    while jobs:
        job = jobs.pop(0)
        try:
            send(job)
        except Exception as exc:
            logger.warning(
                "job %s not sent (%s); recovery will wake it up again", job.name, type(exc).__name__
            )
            continue
        sent += 1
    return sent


async def flush_async(send: AsyncSender) -> int:
    """`flush` through an awaitable sender (an event loop's broker client): the same order, the same
    rule that a job which cannot be sent is logged, not raised. Still after the commit."""
    jobs = _buffer.get()
    if not jobs:
        return 0
    sent = 0
    while jobs:
        job = jobs.pop(0)
        try:
            await send(job)
        except Exception as exc:
            logger.warning(
                "job %s not sent (%s); recovery will wake it up again", job.name, type(exc).__name__
            )
            continue
        sent += 1
    return sent


def reset() -> None:
    """Drop every buffered job (call on rollback)."""
    jobs = _buffer.get()
    if jobs is not None:
        jobs.clear()
