"""The one way a request or a task owns a transaction: commit, then send the buffered jobs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app import jobs


@asynccontextmanager
async def transaction(
    sessionmaker: async_sessionmaker[AsyncSession], send: jobs.Sender
) -> AsyncIterator[AsyncSession]:
    """Open a session; commit when the block succeeds and only then send its jobs; else roll back."""
    with jobs.job_scope():
        async with sessionmaker() as session:
            try:
                yield session
                await session.commit()
            except BaseException:
                await session.rollback()
                jobs.reset()
                raise
        await jobs.flush_off_loop(send)
