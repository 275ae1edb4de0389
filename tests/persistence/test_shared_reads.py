"""A block of shared reads: one session for the sources that would each open their own, one read per
question; outside a block every read opens its own session and nothing is remembered."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.config import Settings
from app.persistence.db import create_engine, create_sessionmaker
from app.persistence.shared_reads import read_session, remembered, shared_reads

Sessions = async_sessionmaker[AsyncSession]


@pytest.fixture
def sessions(engine: AsyncEngine) -> Sessions:
    return create_sessionmaker(engine)


@pytest.fixture
async def other_engine(settings: Settings) -> AsyncIterator[AsyncEngine]:
    """A second engine on the same server: another pool, as another database's would be."""
    engine = create_engine(settings.resolved_database_url(), pool_size=1)
    yield engine
    await engine.dispose()


async def _backend(session: AsyncSession) -> int:
    return int((await session.execute(text("SELECT pg_backend_pid()"))).scalar_one())


class TestOutsideABlock:
    async def test_every_read_opens_a_session_of_its_own(self, sessions: Sessions) -> None:
        async with read_session(sessions) as first:
            await _backend(first)
        async with read_session(sessions) as second:
            await _backend(second)
        assert first is not second

    async def test_nothing_is_remembered(self) -> None:
        reads: list[int] = []

        async def read() -> int:
            reads.append(1)
            return len(reads)

        assert [await remembered("key", read) for _ in range(3)] == [1, 2, 3]


class TestInsideABlock:
    async def test_reads_go_through_the_blocks_session(self, sessions: Sessions) -> None:
        async with sessions() as session, shared_reads(session):
            async with read_session(sessions) as first:
                pid = await _backend(first)
            async with read_session(sessions) as second:
                assert await _backend(second) == pid
        assert first is session
        assert second is session

    async def test_a_question_is_read_once_per_block(self, sessions: Sessions) -> None:
        reads: list[str] = []

        async def read(name: str) -> str:
            reads.append(name)
            return name.upper()

        async with sessions() as session:
            async with shared_reads(session):
                answers = [await remembered(("q", name), lambda name=name: read(name)) for name in "aab"]
            assert answers == ["A", "A", "B"]
            assert reads == ["a", "b"]
            async with shared_reads(session):
                assert await remembered(("q", "a"), lambda: read("a")) == "A"
        assert reads == ["a", "b", "a"], "a new block reads again"

    async def test_tasks_started_in_the_block_take_turns_on_its_session(self, sessions: Sessions) -> None:
        async def slow_read() -> int:
            async with read_session(sessions) as session:
                return int((await session.execute(text("SELECT 1 FROM pg_sleep(0.02)"))).scalar_one())

        async with sessions() as session, shared_reads(session):
            # Without the turns, the second statement on the connection fails: another is in progress.
            assert await asyncio.gather(*(slow_read() for _ in range(4))) == [1, 1, 1, 1]

    async def test_another_databases_sources_keep_sessions_of_their_own(
        self, sessions: Sessions, other_engine: AsyncEngine
    ) -> None:
        others = create_sessionmaker(other_engine)
        async with sessions() as session, shared_reads(session), read_session(others) as other:
            assert other is not session
            assert other.bind is other_engine

    async def test_a_task_that_outlives_the_block_reads_on_its_own(self, sessions: Sessions) -> None:
        go_on = asyncio.Event()

        async def later() -> tuple[AsyncSession, int]:
            await go_on.wait()
            async with read_session(sessions) as session:
                return session, await remembered("key", lambda: asyncio.sleep(0, result=2))

        async with sessions() as session:
            async with shared_reads(session):
                await remembered("key", lambda: asyncio.sleep(0, result=1))
                task = asyncio.create_task(later())
            go_on.set()
            used, answer = await task
        assert used is not session, "the ended block's session is not handed out"
        assert answer == 2, "nothing is remembered past the block"
