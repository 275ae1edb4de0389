"""The post-commit job buffer: jobs leave only after commit, and never after a rollback."""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlalchemy import select

from app import jobs
from app.config import Settings
from app.persistence.db import create_sessionmaker
from app.persistence.models import Space
from app.persistence.transaction import transaction
from app.worker.celery_app import create_celery


class TestBuffer:
    def test_enqueue_outside_a_scope_refuses(self) -> None:
        with pytest.raises(jobs.NoJobScope):
            jobs.enqueue("system.ping")

    def test_flush_sends_in_order_and_empties(self) -> None:
        sent: list[str] = []
        with jobs.job_scope():
            jobs.enqueue("a", 1, queue="system")
            jobs.enqueue("b", x=2)
            assert [j.name for j in jobs.pending()] == ["a", "b"]
            assert jobs.flush(lambda job: sent.append(job.name)) == 2
            assert jobs.pending() == []
        assert sent == ["a", "b"]

    def test_reset_drops_everything(self) -> None:
        sent: list[str] = []
        with jobs.job_scope():
            jobs.enqueue("a")
            jobs.reset()
            assert jobs.flush(lambda job: sent.append(job.name)) == 0
        assert sent == []

    def test_scopes_do_not_leak_into_each_other(self) -> None:
        with jobs.job_scope():
            jobs.enqueue("outer")
            with jobs.job_scope():
                assert jobs.pending() == []
            assert [j.name for j in jobs.pending()] == ["outer"]


class TestTransaction:
    async def test_job_reaches_a_real_worker_only_after_the_row_is_committed(
        self, engine, settings: Settings, worker, clean_db
    ) -> None:  # type: ignore[no-untyped-def]
        celery = create_celery(settings)
        sessionmaker = create_sessionmaker(engine)
        observed: list[bool] = []
        results = []
        sessions = []

        def send(job: jobs.Job) -> None:
            # Runs at flush time: the transaction must be over (committed) by then.
            observed.append(sessions[0].in_transaction())
            results.append(celery.send_task(job.name, args=job.args, queue=job.queue))

        async with transaction(sessionmaker, send) as session:
            sessions.append(session)
            session.add(Space(name="committed first"))
            await session.flush()
            jobs.enqueue("system.ping", queue="system")
            assert results == [], "nothing is sent before commit"

        async with sessionmaker() as check:
            assert (await check.scalars(select(Space).where(Space.name == "committed first"))).one()
        assert observed == [False]
        assert results[0].get(timeout=30)["pong"]

    async def test_a_broker_that_cannot_take_the_job_does_not_fail_the_committed_transaction(
        self, engine, clean_db
    ) -> None:  # type: ignore[no-untyped-def]
        sessionmaker = create_sessionmaker(engine)
        attempted: list[str] = []

        def broker_down(job: jobs.Job) -> None:
            attempted.append(job.name)
            raise ConnectionError("broker unreachable")

        async with transaction(sessionmaker, broker_down) as session:
            session.add(Space(name="kept although the wake-up was lost"))
            jobs.enqueue("runs.execute", "a")
            jobs.enqueue("events.dispatch", "b")
        assert attempted == ["runs.execute", "events.dispatch"], "one failure does not drop the others"
        async with sessionmaker() as check:
            assert (await check.scalars(select(Space).where(Space.name.like("kept%")))).one()

    async def test_rollback_sends_nothing(self, engine, clean_db) -> None:  # type: ignore[no-untyped-def]
        sessionmaker = create_sessionmaker(engine)
        sent: list[jobs.Job] = []

        async def fail_after_enqueue() -> None:
            async with transaction(sessionmaker, sent.append) as session:
                session.add(Space(name="never committed"))
                await session.flush()
                jobs.enqueue("system.ping", queue="system")
                raise RuntimeError("boom")

        with pytest.raises(RuntimeError, match="boom"):
            await fail_after_enqueue()
        assert sent == []
        async with sessionmaker() as check:
            assert (await check.scalars(select(Space).where(Space.name == "never committed"))).all() == []


class TestPublishOffTheLoop:
    async def test_jobs_leave_from_another_thread_after_the_commit(self, engine, clean_db) -> None:  # type: ignore[no-untyped-def]
        sessionmaker = create_sessionmaker(engine)
        seen: list[tuple[str, bool, int]] = []
        loop_thread = threading.get_ident()

        def send(job: jobs.Job) -> None:
            committed = asyncio.run_coroutine_threadsafe(_committed(sessionmaker), loop).result(timeout=10)
            seen.append((job.name, committed, threading.get_ident()))

        loop = asyncio.get_running_loop()
        async with transaction(sessionmaker, send, publish_off_loop=True) as session:
            session.add(Space(name="published off the loop"))
            jobs.enqueue("runs.execute", "a")
        ((name, committed, thread),) = seen
        assert name == "runs.execute"
        assert committed, "the row was committed before its wake-up left"
        assert thread != loop_thread, "the publish did not run on the event loop's thread"

    async def test_a_failing_broker_off_the_loop_still_keeps_the_commit(self, engine, clean_db) -> None:  # type: ignore[no-untyped-def]
        sessionmaker = create_sessionmaker(engine)

        def broker_down(job: jobs.Job) -> None:
            raise ConnectionError("broker unreachable")

        async with transaction(sessionmaker, broker_down, publish_off_loop=True) as session:
            session.add(Space(name="kept off the loop"))
            jobs.enqueue("runs.execute", "a")
        async with sessionmaker() as check:
            assert (await check.scalars(select(Space).where(Space.name == "kept off the loop"))).one()


async def _committed(sessionmaker) -> bool:  # type: ignore[no-untyped-def]
    async with sessionmaker() as check:
        found = (await check.scalars(select(Space).where(Space.name == "published off the loop"))).all()
        return bool(found)
