"""A claim's lease on its run, renewed while the claim works.

A claim holds its run until `lease_expires_at`; recovery takes back a run whose lease ran out. The
claim renews it every third of its length, so two renewals may fail or run late before the run is
taken back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from datetime import timedelta

from app.persistence.autocommit import AutocommitWrites
from app.persistence.base import utcnow
from app.persistence.models import Run
from app.persistence.repositories.runs import RunRepository
from app.services.runs.journal import RunJournal

logger = logging.getLogger(__name__)
MIN_RENEWAL_SECONDS = 0.5


def renewal_interval(lease: timedelta) -> float:
    """Seconds between two renewals of a lease this long."""
    return max(MIN_RENEWAL_SECONDS, lease.total_seconds() / 3)


@contextlib.asynccontextmanager
async def lease_renewed(
    writes: AutocommitWrites, run: Run, lease: timedelta, journal: RunJournal
) -> AsyncIterator[None]:
    """Renew the claim's lease on `run` through the claim's connection while the block runs; a renewal
    that finds the run no longer held marks the journal's lease lost and renewals stop.

    When the block ends, a renewal under way is let finish rather than cancelled: a statement cancelled
    mid-flight invalidates the claim's connection, and the claim's finish would need a new one.
    """
    ended = asyncio.Event()

    async def renew() -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ended.wait(), renewal_interval(lease))
                return
            try:
                async with writes.write() as session:
                    held = await RunRepository(session).renew_lease(run.id, run.attempt, lease, utcnow())
            except Exception as exc:  # the database is away: keep trying until the lease runs out
                logger.warning("run %s: lease renewal failed (%s); retrying", run.id, type(exc).__name__)
                continue
            if not held:
                journal.lease_lost = True
                return

    renewals = asyncio.create_task(renew())
    try:
        yield
    finally:
        ended.set()
        await renewals
