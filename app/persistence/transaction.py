"""The one way a request or a task owns a transaction: commit, then send the buffered jobs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app import jobs


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
