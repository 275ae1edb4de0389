"""One session, and one answer per question, for a block of reads that would each open their own.

What a space's definitions are validated against comes from several sources: its enabled plugins (asked
for actions, for capabilities and for event types), its databases and its MCP tools. Each source reads
with a session of its own, so on its own each read costs a pool checkout, a statement and a rollback,
and the plugins are read three times. Inside `shared_reads(session)` the sources read through that one
session (`read_session`), and a question asked again in the block is answered from the first read
(`remembered`). Outside such a block nothing changes: every read opens its own session, and nothing is
remembered, so a switch (a plugin enabled, a tool harvested) is seen by the next read.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

T = TypeVar("T")


@dataclass
class _Block:
    session: AsyncSession
    # The session serves one statement at a time: a task the block starts (it inherits the block)
    # waits for its turn rather than run a statement beside another.
    turn: asyncio.Lock = field(default_factory=asyncio.Lock)
    answers: dict[Hashable, Any] = field(default_factory=dict)
    # A task started in the block keeps the block in its context after the block ended: it then reads
    # as if no block were open, never through a session its owner may have closed.
    open: bool = True


_block: ContextVar[_Block | None] = ContextVar("automations_shared_reads", default=None)


@asynccontextmanager
async def shared_reads(session: AsyncSession) -> AsyncIterator[None]:
    """Within the block, sources read through `session` and each question is read once."""
    block = _Block(session)
    token = _block.set(block)
    try:
        yield
    finally:
        block.open = False
        _block.reset(token)


@asynccontextmanager
async def read_session(sessions: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    """The block's session when a block is open on the same database as `sessions`; otherwise a session
    of its own, closed (rolled back) at the end. A source reads and leaves: another `read_session` inside
    this one, in the same task, would wait for its own turn for good."""
    block = _block.get()
    if block is None or not block.open or block.session.bind is not sessions.kw.get("bind"):
        async with sessions() as session:
            yield session
        return
    async with block.turn:
        yield block.session


async def remembered(key: Hashable, read: Callable[[], Awaitable[T]]) -> T:
    """`read()`'s answer, read once per block under `key` (each time, outside a block)."""
    block = _block.get()
    if block is None or not block.open:
        return await read()
    if key not in block.answers:
        block.answers[key] = await read()
    return cast(T, block.answers[key])
