"""One-statement writes on one held connection: each statement is its own transaction.

A run's claim makes many small records, and each of them is a single statement (a conditional update,
an insert, or several joined in one statement through data-modifying CTEs). PostgreSQL commits such a
statement on its own, so sending it in autocommit mode makes it durable when it returns without the
BEGIN and COMMIT round trips of an explicit transaction. Anything that needs two statements to be
atomic, or that queues a wake-up, belongs in a transaction instead.

Behind a transaction pooler (`app.persistence.db.behind_transaction_pooler`) a statement outside a
transaction may be parsed on one server connection and executed on another; there each write is a
transaction of its own instead, committed before the write returns: as durable, two round trips dearer.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession

from app import jobs
from app.persistence.db import behind_transaction_pooler

AUTOCOMMIT = {"isolation_level": "AUTOCOMMIT"}


def _rejoin(queued: list[jobs.Job]) -> None:
    """Hand a committed transaction's wake-ups to the caller's job scope."""
    for job in queued:
        jobs.enqueue(job.name, *job.args, queue=job.queue, countdown=job.countdown, **job.kwargs)


class JobInAutocommitWrite(RuntimeError):
    """A one-statement write queued a wake-up: it needs a unit of work that sends it after commit."""


class AutocommitWrites:
    """One connection held for a claim: statements that commit one by one, then one transaction.

    Writes take turns (an asyncpg connection runs one statement at a time, and an agent may call tools
    concurrently). A failed statement is rolled back and the next write goes on. The claim's finish,
    whose statements must commit together, is a transaction on the same connection (`transaction`), so
    the claim checks out (and pings) one connection only.
    """

    def __init__(self, connection: AsyncConnection, *, commit_each: bool = False) -> None:
        self.connection = connection
        self.session = AsyncSession(bind=connection, expire_on_commit=False, autoflush=False)
        self._turn = asyncio.Lock()
        # Behind a transaction pooler: each write commits its own transaction (see the module's docstring).
        self._commit_each = commit_each

    @classmethod
    @asynccontextmanager
    async def open(cls, engine: AsyncEngine) -> AsyncIterator[AutocommitWrites]:
        """Check out a connection in autocommit mode for the block; it goes back to the pool after."""
        async with engine.connect() as connection:
            pooled = behind_transaction_pooler(engine)
            if not pooled:
                await connection.execution_options(**AUTOCOMMIT)
            writes = cls(connection, commit_each=pooled)
            try:
                yield writes
            finally:
                await writes.session.close()

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """The session for one durable statement: flushed when the block ends, committed by the server."""
        async with self._turn:
            await self._keep_autocommit()
            try:
                with jobs.job_scope() as queued:
                    yield self.session
                    await self.session.flush()
                    if queued:
                        raise JobInAutocommitWrite(f"{queued[0].name} queued in a one-statement write")
                    await self._commit_if_pooled()
            except BaseException:
                await self.session.rollback()
                raise
            finally:
                # Nothing here is read back from the identity map; keep it from growing over a long claim.
                self.session.expunge_all()

    @asynccontextmanager
    async def last_write(self) -> AsyncIterator[AsyncSession]:
        """Like `write`, for the claim's last statement, whose wake-ups join the caller's job scope: the
        statement is durable once it returns, so they may leave whenever that scope sends them."""
        async with self._turn:
            await self._keep_autocommit()
            try:
                yield self.session
                await self.session.flush()
                await self._commit_if_pooled()
            except BaseException:
                await self.session.rollback()
                raise
            finally:
                self.session.expunge_all()

    async def _keep_autocommit(self) -> None:
        """Put the connection back in autocommit mode after a statement cut short invalidated it.

        A statement interrupted mid-flight (its task cancelled, as a step's timeout does, or its server
        connection lost) invalidates the connection; the next statement runs on a new server connection,
        which starts at the engine's usual isolation level. There every later write of the claim would
        sit in a transaction nobody commits, and be lost when the connection goes back to the pool.
        """
        if self.connection.invalidated and not self._commit_each:
            await self.connection.execution_options(**AUTOCOMMIT)

    async def _commit_if_pooled(self) -> None:
        if self._commit_each:
            await self.session.commit()

    def atomic(self) -> AbstractAsyncContextManager[AsyncSession]:
        """A transaction in the middle of the claim, on the same connection, which then goes back to
        one-statement writes: for the few writes of a claim that must commit together (asking for an
        approval). Its wake-ups join the caller's job scope once it committed; a rollback drops them."""
        return self._transaction(resume_autocommit=True)

    def transaction(self) -> AbstractAsyncContextManager[AsyncSession]:
        """A transaction on the same connection, committed when the block succeeds, else rolled back.

        The jobs it queues join the caller's job scope once it committed; the connection writes nothing
        in autocommit mode afterwards.
        """
        return self._transaction(resume_autocommit=False)

    @asynccontextmanager
    async def _transaction(self, *, resume_autocommit: bool) -> AsyncIterator[AsyncSession]:
        async with self._turn:
            # Ends the session's bookkeeping of the autocommit statements (nothing is sent), so the
            # connection may leave autocommit mode: the next statement opens a real transaction.
            await self.session.commit()
            await self.connection.execution_options(isolation_level=self.connection.default_isolation_level)
            try:
                with jobs.job_scope() as queued:
                    yield self.session
                    await self.session.commit()
                _rejoin(queued)
            except BaseException:
                await self.session.rollback()
                raise
            finally:
                if resume_autocommit:
                    self.session.expunge_all()
                    # Behind a transaction pooler the connection never autocommits.
                    if not self._commit_each:
                        await self.connection.execution_options(**AUTOCOMMIT)


OpenClaimWrites = Callable[[], AbstractAsyncContextManager[AutocommitWrites]]
"""Opens the connection one claim writes through (`claim_writes` bound to a process's engine)."""


@asynccontextmanager
async def claim_writes(engine: AsyncEngine, send: jobs.Sender) -> AsyncIterator[AutocommitWrites]:
    """The connection a claim writes through, for the claim's whole life; the wake-ups its writes queued
    leave after the block (every write that queues one has committed by then), and none on an error."""
    with jobs.job_scope():
        try:
            async with AutocommitWrites.open(engine) as writes:
                yield writes
        finally:
            # Each wake-up joined this scope only once the write that queued it had committed.
            jobs.flush(send)
