"""The post-commit job buffer: jobs leave only after commit, and never after a rollback."""

from __future__ import annotations

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


class TestPublishOnTheLoop:
    async def test_an_awaitable_sender_takes_the_jobs_after_the_commit(self, engine, clean_db) -> None:  # type: ignore[no-untyped-def]
        sessionmaker = create_sessionmaker(engine)
        seen: list[tuple[str, bool]] = []

        def not_used(job: jobs.Job) -> None:
            raise AssertionError(f"the blocking sender got {job.name}")

        async def send(job: jobs.Job) -> None:
            seen.append((job.name, await _committed(sessionmaker)))

        async with transaction(sessionmaker, not_used, send_async=send) as session:
            session.add(Space(name="published on the loop"))
            jobs.enqueue("runs.execute", "a")
            jobs.enqueue("events.dispatch", "b")
            assert seen == [], "nothing is sent before commit"
        assert seen == [("runs.execute", True), ("events.dispatch", True)]

    async def test_a_failing_awaitable_sender_still_keeps_the_commit(self, engine, clean_db) -> None:  # type: ignore[no-untyped-def]
        sessionmaker = create_sessionmaker(engine)
        attempted: list[str] = []

        async def broker_down(job: jobs.Job) -> None:
            attempted.append(job.name)
            raise ConnectionError("broker unreachable")

        async with transaction(sessionmaker, broker_down_sync, send_async=broker_down) as session:
            session.add(Space(name="published on the loop, broker down"))
            jobs.enqueue("runs.execute", "a")
            jobs.enqueue("events.dispatch", "b")
        assert attempted == ["runs.execute", "events.dispatch"], "one failure does not drop the others"
        async with sessionmaker() as check:
            kept = select(Space).where(Space.name.like("published on the loop, %"))
            assert (await check.scalars(kept)).one()


def broker_down_sync(job: jobs.Job) -> None:
    raise AssertionError(f"the blocking sender got {job.name}")


async def _committed(sessionmaker) -> bool:  # type: ignore[no-untyped-def]
    async with sessionmaker() as check:
        found = (await check.scalars(select(Space).where(Space.name == "published on the loop"))).all()
        return bool(found)
