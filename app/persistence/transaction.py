"""The one way a request or a task owns a transaction: commit, then send the buffered jobs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app import jobs
from app.persistence.autocommit import AUTOCOMMIT


@asynccontextmanager
async def transaction(
    sessionmaker: async_sessionmaker[AsyncSession], send: jobs.Sender, *, publish_off_loop: bool = False
) -> AsyncIterator[AsyncSession]:
    """Open a session; commit when the block succeeds and only then send its jobs; else roll back.

    `publish_off_loop` sends the jobs from a thread (`jobs.flush_off_loop`), for an event loop that
    serves other requests meanwhile (the API); `send` must then work from any thread.
    """
    with jobs.job_scope():
        async with sessionmaker() as session:
            try:
                yield session
                await session.commit()
            except BaseException:
                await session.rollback()
                jobs.reset()
                raise
        if publish_off_loop:
            await jobs.flush_off_loop(send)
        else:
            jobs.flush(send)


_AUTOCOMMIT = "automations_autocommit"


async def autocommit(session: AsyncSession) -> None:
    """Run the session's statements each in its own transaction, until `leave_autocommit`.

    Call it before the session's first statement. A single statement that writes everything it must
    (a webhook fire's run and its trigger's stamp) then costs one round trip, without BEGIN and COMMIT;
    the jobs of the request are still sent only after the statement committed. The connection gets its
    usual isolation level back when it returns to the pool.
    """
    await session.connection(execution_options=AUTOCOMMIT)
    session.info[_AUTOCOMMIT] = True


def in_autocommit(session: AsyncSession) -> bool:
    """Whether `autocommit` put this session's statements each in its own transaction."""
    return bool(session.info.get(_AUTOCOMMIT))


async def leave_autocommit(session: AsyncSession) -> None:
    """Give a session in autocommit a real transaction for what follows (locks, several writes).

    What ran so far is already committed; the next statement begins a transaction on a connection at
    its usual isolation level.
    """
    if session.info.pop(_AUTOCOMMIT, False):
        await session.commit()
