"""A claim's one connection when one of its statements is cut short: what the claim writes after it still
commits, and the lease renewal never cuts a statement short itself.

A statement interrupted mid-flight (its task cancelled, as a step's timeout does, or its server
connection lost) invalidates the connection, and SQLAlchemy sets up a new server connection for the
next statement. These tests hold a run, cut one of the claim's statements short, finish the claim on the
same `AutocommitWrites`, and read the run from another connection once the claim's has gone back to
the pool.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError

from app import jobs
from app.definitions.run_states import RunStatus
from app.engine.claim_ports import Outcome
from app.persistence.autocommit import AutocommitWrites
from app.persistence.base import utcnow
from app.persistence.models import Run
from app.services.runs.finishing import finish_claim
from app.services.runs.journal import RunJournal
from app.services.runs.lease import lease_renewed, renewal_interval
from app.services.runs.limits import DispatchLimits
from tests.support.factories import Factory
from tests.support.held_runs import claim, fire

SLEEPING = "SELECT count(*) > 0 FROM pg_stat_activity WHERE pid = :pid AND query = 'SELECT pg_sleep(30)'"
WAITING_FOR_A_LOCK = "SELECT count(*) > 0 FROM pg_stat_activity WHERE pid = :pid AND wait_event_type = 'Lock'"


async def _held(app: Any, factory: Factory) -> Run:
    owner = await factory.owner()
    automation = await owner.create_automation()
    return await claim(app, (await fire(app, automation["id"])).id)


async def _stored(app: Any, run_id: uuid.UUID) -> Run:
    async with app.state.sessionmaker() as session:
        row = await session.get(Run, run_id)
    assert row is not None
    return row


async def _finish(writes: AutocommitWrites, run: Run) -> Run | None:
    outcome = Outcome("succeeded", output={"ok": True})
    return await finish_claim(writes, run, outcome, DispatchLimits(), utcnow())


async def _backend(writes: AutocommitWrites) -> int:
    async with writes.write() as session:
        return int((await session.execute(text("SELECT pg_backend_pid()"))).scalar_one())


async def _until(app: Any, query: str, **params: Any) -> None:
    """Until `query` (on another connection) answers a true value; ten seconds at most."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        async with app.state.engine.connect() as other:
            if (await other.execute(text(query), params)).scalar_one():
                return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never true: {query}")


async def test_a_cancelled_statement_leaves_later_writes_durable(app: Any, factory: Factory) -> None:
    run = await _held(app, factory)
    with jobs.job_scope():
        async with AutocommitWrites.open(app.state.engine) as writes:
            backend = await _backend(writes)

            async def long_write() -> None:
                async with writes.write() as session:
                    await session.execute(text("SELECT pg_sleep(30)"))

            cut_short = asyncio.create_task(long_write())
            await _until(app, SLEEPING, pid=backend)
            cut_short.cancel()
            with pytest.raises(asyncio.CancelledError):
                await cut_short
            assert writes.connection.invalidated, "the cancel cost the claim its server connection"

            written = await _finish(writes, run)
            assert written is not None
            assert await _backend(writes) != backend
    assert (await _stored(app, run.id)).status == RunStatus.succeeded


async def test_a_lost_server_connection_leaves_later_writes_durable(app: Any, factory: Factory) -> None:
    run = await _held(app, factory)
    with jobs.job_scope():
        async with AutocommitWrites.open(app.state.engine) as writes:
            backend = await _backend(writes)
            async with app.state.engine.connect() as other:
                await other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": backend})
            with pytest.raises(DBAPIError):
                await _backend(writes)
            assert writes.connection.invalidated

            assert await _finish(writes, run) is not None
    assert (await _stored(app, run.id)).status == RunStatus.succeeded


async def test_a_renewal_under_way_when_the_claim_ends_is_let_finish(app: Any, factory: Factory) -> None:
    run = await _held(app, factory)
    lease = timedelta(seconds=1.5)
    assert renewal_interval(lease) == 0.5
    with jobs.job_scope():
        async with AutocommitWrites.open(app.state.engine) as writes:
            backend = await _backend(writes)
            journal = RunJournal(writes.write, run.id, run.attempt)
            async with app.state.sessionmaker() as other:
                # Another transaction holds the run's row: the first renewal waits for it.
                await other.execute(select(Run.id).where(Run.id == run.id).with_for_update())

                block_ended = asyncio.Event()

                async def claim_work() -> None:
                    async with lease_renewed(writes, run, lease, journal):
                        await _until(app, WAITING_FOR_A_LOCK, pid=backend)
                        block_ended.set()

                work = asyncio.create_task(claim_work())
                await block_ended.wait()
                await asyncio.sleep(0.5)
                assert not work.done(), "the claim's end waits for the renewal under way"
                await other.rollback()
                await work
            assert not writes.connection.invalidated
            assert await _backend(writes) == backend, "the claim kept its server connection"
            assert not journal.lease_lost
    stored = await _stored(app, run.id)
    assert stored.lease_expires_at is not None
    assert run.lease_expires_at is not None
    assert stored.lease_expires_at < run.lease_expires_at, "the renewal under way was written"
