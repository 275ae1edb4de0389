"""Engines hand out live connections: what a checkout checks when it does not ping every time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import exc, text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.persistence.db import create_engine
from app.worker.runtime import create_worker_engine

ADMIN_WAIT_SECONDS = 10.0


async def _backend_pid(engine: AsyncEngine) -> int:
    async with engine.connect() as connection:
        return int((await connection.execute(text("SELECT pg_backend_pid()"))).scalar_one())


async def _terminate(admin: AsyncEngine, pid: int) -> None:
    """End a server process from another connection and wait until the server no longer lists it."""
    async with admin.connect() as connection:
        assert (await connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})).scalar()
        for _ in range(int(ADMIN_WAIT_SECONDS / 0.05)):
            listed = await connection.execute(
                text("SELECT count(*) FROM pg_stat_activity WHERE pid = :pid"), {"pid": pid}
            )
            if listed.scalar_one() == 0:
                break
            await asyncio.sleep(0.05)
    # Give the event loop a turn to read the closed socket of the pooled connection.
    await asyncio.sleep(0.2)


def _terminate_on_a_loop_of_its_own(database_url: str, pid: int) -> None:
    loop = asyncio.new_event_loop()
    admin = create_engine(database_url, pool_size=1)
    try:
        loop.run_until_complete(_terminate(admin, pid))
    finally:
        loop.run_until_complete(admin.dispose())
        loop.close()


@pytest.fixture
async def admin(database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(database_url, pool_size=1)
    yield engine
    await engine.dispose()


async def _engine(database_url: str, ping_after_idle: float) -> AsyncEngine:
    return create_engine(database_url, pool_size=1, ping_after_idle=ping_after_idle)


class TestCheckoutWithoutPing:
    async def test_a_connection_the_server_closed_is_replaced_before_a_request_uses_it(
        self, database_url: str, admin: AsyncEngine
    ) -> None:
        # An hour of idle time before any ping: only the driver's own view of the socket is checked.
        engine = await _engine(database_url, ping_after_idle=3600)
        try:
            first = await _backend_pid(engine)
            await _terminate(admin, first)
            second = await _backend_pid(engine)
            assert second != first
        finally:
            await engine.dispose()

    async def test_a_busy_connection_is_reused(self, database_url: str) -> None:
        engine = await _engine(database_url, ping_after_idle=3600)
        try:
            assert await _backend_pid(engine) == await _backend_pid(engine)
        finally:
            await engine.dispose()

    async def test_an_idle_connection_is_pinged_and_kept_when_it_answers(self, database_url: str) -> None:
        # Idle for longer than zero seconds: every checkout pings, and a live connection passes.
        engine = await _engine(database_url, ping_after_idle=0)
        try:
            assert await _backend_pid(engine) == await _backend_pid(engine)
        finally:
            await engine.dispose()

    async def test_without_the_setting_every_checkout_pings(
        self, database_url: str, admin: AsyncEngine
    ) -> None:
        engine = create_engine(database_url, pool_size=1)
        try:
            first = await _backend_pid(engine)
            await _terminate(admin, first)
            assert await _backend_pid(engine) != first
        finally:
            await engine.dispose()


async def _hold_at_once(engine: AsyncEngine, count: int) -> set[int]:
    """Check out `count` connections at the same time; answer their server process ids."""
    connections = [await engine.connect() for _ in range(count)]
    try:
        return {
            int((await connection.execute(text("SELECT pg_backend_pid()"))).scalar_one())
            for connection in connections
        }
    finally:
        for connection in connections:
            await connection.close()


class TestPoolSize:
    async def test_the_pool_keeps_its_connections_and_closes_the_overflow(self, database_url: str) -> None:
        engine = create_engine(database_url, pool_size=3, max_overflow=2, ping_after_idle=3600)
        try:
            burst = await _hold_at_once(engine, 5)
            assert len(burst) == 5
            # Three stay open for the next burst; the two beyond the pool were closed on return.
            assert engine.pool.checkedin() == 3
            steady = await _hold_at_once(engine, 3)
            assert steady < burst
        finally:
            await engine.dispose()

    async def test_no_connection_beyond_pool_and_overflow(self, database_url: str) -> None:
        engine = create_engine(database_url, pool_size=1, max_overflow=0, ping_after_idle=3600)
        engine.sync_engine.pool._timeout = 0.2  # fail fast instead of waiting 30 s for a free one
        try:
            held = await engine.connect()
            with pytest.raises(exc.TimeoutError):
                await engine.connect()
            await held.close()
        finally:
            await engine.dispose()


class TestWorkerEngine:
    def test_a_connection_the_server_closed_between_two_tasks_is_replaced(self, database_url: str) -> None:
        # A worker runs each task to completion on its own loop, which stands still in between: the
        # closed socket is only noticed once the next task runs.
        loop = asyncio.new_event_loop()
        engine = create_worker_engine(database_url)
        try:
            first = loop.run_until_complete(_backend_pid(engine))
            _terminate_on_a_loop_of_its_own(database_url, first)
            second = loop.run_until_complete(_backend_pid(engine))
            assert second != first
        finally:
            loop.run_until_complete(engine.dispose())
            loop.close()
