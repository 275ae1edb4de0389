"""The one way a request or a task owns a transaction: commit, then send the buffered jobs."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app import jobs
from app.persistence.autocommit import AUTOCOMMIT
from app.persistence.db import behind_transaction_pooler

UnitOfWork = Callable[[], AbstractAsyncContextManager[AsyncSession]]
"""Opens a session that commits when its block succeeds (`transaction` bound to its sessionmaker)."""


@asynccontextmanager
async def transaction(
    sessionmaker: async_sessionmaker[AsyncSession],
    send: jobs.Sender,
    *,
    send_async: jobs.AsyncSender | None = None,
) -> AsyncIterator[AsyncSession]:
    """Open a session; commit when the block succeeds and only then send its jobs; else roll back.

    `send_async`, when given, takes the place of `send`: an awaitable sender (an event loop's own broker
    client, `app.integrations.broker`), for a loop that serves other requests while the publish waits.
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
        if send_async is not None:
            await jobs.flush_async(send_async)
        else:
            jobs.flush(send)


_AUTOCOMMIT = "automations_autocommit"


async def autocommit(session: AsyncSession) -> None:
    """Run the session's statements each in its own transaction, until `leave_autocommit`.

    Call it before the session's first statement. A single statement that writes everything it must
    (a webhook fire's run and its trigger's stamp) then costs one round trip, without BEGIN and COMMIT;
    the jobs of the request are still sent only after the statement committed. The connection gets its
    usual isolation level back when it returns to the pool.

    Behind a transaction pooler this does nothing: the statements stay in the session's transaction
    (see `app.persistence.autocommit`).
    """
    if session.bind is not None and behind_transaction_pooler(session.bind):
        return
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
