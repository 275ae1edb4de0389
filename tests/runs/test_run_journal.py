"""One claim of a run on the real database, driven in-process with the worker's own ports: what it
records, how few round trips it takes, and how a cancel or a lost claim stops it at a step boundary.

Round trips are counted with SQLAlchemy's engine events (statements sent, and BEGIN, COMMIT, ROLLBACK
where the driver sends them: not on the claim's autocommit connection). The count is deterministic for
a given plan, so it guards the run path against a statement creeping back in.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event, select, update
from sqlalchemy.exc import IntegrityError

from app.engine.claim_ports import ClaimLost, StepAt, StopRequested
from app.persistence.autocommit import AutocommitWrites
from app.persistence.models import ActionInvocation, DomainEvent, Notification, Run, RunStep
from app.services.runs.journal import RunJournal
from app.worker.runtime import WorkerRuntime
from tests.support.factories import Factory
from tests.support.in_process import execute, in_process_runtime
from tests.support.round_trips import counted
from tests.support.runs import RUN_EVENT_LISTENER, stored_run

THREE_STEPS: dict[str, Any] = {
    "schema_version": "1.0",
    "name": "Three steps",
    "plan": [
        {
            "step_id": "shape",
            "action": "transform_data",
            "config": {"output": {"n": "{{ inputs.n }}", "title": "Build {{ inputs.n }}"}},
            "output_as": "shaped",
        },
        {
            "step_id": "double",
            "action": "transform_data",
            "config": {"output": {"text": "{{ shaped.title }}: {{ shaped.n * 2 }}"}},
            "output_as": "doubled",
        },
        {
            "step_id": "notify",
            "action": "notification",
            "config": {"title": "{{ shaped.title }}", "body": "{{ doubled.text }}", "level": "info"},
        },
    ],
}
# Claim 1, three attempt begins (each also ending the attempt before it) 3, the notification 1, its
# invocation row 1, the finish 1 (one statement: the run's update, the last attempt's end and the
# terminal event; nothing needs a transaction here). All on one connection: one checkout (and one
# pre-ping) per claim.
MAX_ROUND_TRIPS = 7


@pytest.fixture
async def runtime(app: Any) -> WorkerRuntime:
    return in_process_runtime(app)


@contextmanager
def checked_out(app: Any, *, excluding_plugin_reads: bool) -> Iterator[list[int]]:
    """How many connections were checked out of the pool meanwhile (each pays a pre-ping), in a
    one-item list; the plugin source's reads check out one each and are left out when asked."""
    count = [0]
    pool = app.state.engine.sync_engine.pool
    engine = app.state.engine.sync_engine

    def checkout(*_: Any) -> None:
        count[0] += 1

    def plugin_read(conn: Any, cursor: Any, text: str, *_: Any) -> None:
        if excluding_plugin_reads and "FROM space_plugins" in text:
            count[0] -= 1

    event.listen(pool, "checkout", checkout)
    event.listen(engine, "before_cursor_execute", plugin_read)
    try:
        yield count
    finally:
        event.remove(pool, "checkout", checkout)
        event.remove(engine, "before_cursor_execute", plugin_read)


def _plugin_reads(sent: list[str]) -> int:
    """Round trips of the plugin source's own reads (this test session loads plugins; a deployment
    without any makes none): its BEGIN, the read, its ROLLBACK."""
    return 3 * sum(1 for text in sent if "FROM space_plugins" in text)


async def _steps(app: Any, run_id: uuid.UUID) -> list[RunStep]:
    async with app.state.sessionmaker() as session:
        statement = select(RunStep).where(RunStep.run_id == run_id).order_by(RunStep.started_at)
        return list((await session.scalars(statement)).all())


class TestOneClaim:
    async def test_a_three_step_run_records_everything_in_at_most_seven_round_trips(
        self, app: Any, factory: Factory, runtime: WorkerRuntime
    ) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation(THREE_STEPS)
        # The first run warms the caches that are per process (parsed definition, compiled templates).
        warm_up = await stored_run(app, owner, automation, inputs={"n": 1})
        assert await execute(runtime, warm_up.id) == "succeeded"
        run_id = (await stored_run(app, owner, automation, inputs={"n": 21})).id

        with counted(app) as sent, checked_out(app, excluding_plugin_reads=True) as checkouts:
            assert await execute(runtime, run_id) == "succeeded"

        assert len(sent) - _plugin_reads(sent) <= MAX_ROUND_TRIPS, "\n".join(sent)
        assert checkouts == [1], "the claim's statements and its finish share one connection"
        steps = await _steps(app, run_id)
        assert [(s.step_id, s.attempt, s.status) for s in steps] == [
            ("shape", 1, "succeeded"),
            ("double", 1, "succeeded"),
            ("notify", 1, "succeeded"),
        ]
        assert steps[0].output_full == {"n": 21, "title": "Build 21"}
        assert steps[1].output == {"text": "Build 21: 42"}
        assert all(s.finished_at is not None and s.duration_ms is not None for s in steps)
        assert steps[2].config == {"title": "Build 21", "body": "Build 21: 42", "level": "info"}
        async with app.state.sessionmaker() as session:
            run = await session.get(Run, run_id)
            notes = (await session.scalars(select(Notification).where(Notification.run_id == run_id))).all()
            calls = (
                await session.scalars(select(ActionInvocation).where(ActionInvocation.run_id == run_id))
            ).all()
            events = (
                await session.scalars(select(DomainEvent).where(DomainEvent.source_id == automation["id"]))
            ).all()
        assert run is not None
        assert run.status == "succeeded"
        assert (run.claimed_by, run.lease_expires_at, run.deadline_at is not None) == (None, None, True)
        assert [(n.title, n.body) for n in notes] == [("Build 21", "Build 21: 42")]
        assert [(c.step_id, c.status) for c in calls] == [("notify", "executed")]
        (terminal,) = [e for e in events if e.payload["run_id"] == str(run_id)]
        # No event trigger of the space listens: recorded as dispatched to nobody, no dispatcher woken.
        assert (terminal.event_type, terminal.consumed_by) == ("automation.run.succeeded", [])
        assert terminal.dispatched_at is not None

    async def test_a_terminal_event_a_trigger_listens_for_is_left_to_the_dispatcher(
        self, app: Any, factory: Factory, runtime: WorkerRuntime
    ) -> None:
        owner = await factory.owner()
        await owner.create_automation(RUN_EVENT_LISTENER)
        automation = await owner.create_automation(THREE_STEPS)
        run_id = (await stored_run(app, owner, automation, inputs={"n": 1})).id

        assert await execute(runtime, run_id) == "succeeded"

        async with app.state.sessionmaker() as session:
            events = (
                await session.scalars(select(DomainEvent).where(DomainEvent.source_id == automation["id"]))
            ).all()
        [event] = events
        assert event.event_type == "automation.run.succeeded"
        # Not recorded as dispatched to nobody (that stamps it as it is written): a dispatcher was woken,
        # and a worker this test session runs may already have taken it.
        assert event.dispatched_at is None or event.dispatched_at > event.created_at

    async def test_a_failing_step_records_its_error_and_the_plan_failure(
        self, app: Any, factory: Factory, runtime: WorkerRuntime
    ) -> None:
        owner = await factory.owner()
        document = {
            "schema_version": "1.0",
            "name": "Fails",
            "plan": [
                {"step_id": "ok", "action": "transform_data", "config": {"output": 1}},
                {"step_id": "bad", "action": "transform_data", "config": {"output": "{{ inputs.n / 0 }}"}},
            ],
        }
        automation = await owner.create_automation(document)
        run_id = (await stored_run(app, owner, automation, inputs={"n": 1})).id

        assert await execute(runtime, run_id) == "failed"

        steps = await _steps(app, run_id)
        assert [(s.step_id, s.status) for s in steps] == [("ok", "succeeded"), ("bad", "failed")]
        assert steps[1].error is not None
        assert (steps[1].output, steps[1].finished_at is not None) == (None, True)
        async with app.state.sessionmaker() as session:
            run = await session.get(Run, run_id)
        assert run is not None
        assert (run.status, run.failed_step_id) == ("failed", "bad")


class TestJournal:
    """The journal alone, on a run claimed by hand: the stop check is part of beginning an attempt."""

    @pytest.fixture
    async def claimed(self, app: Any, factory: Factory) -> AsyncIterator[Any]:
        owner = await factory.owner()
        automation = await owner.create_automation(THREE_STEPS)
        run = await stored_run(app, owner, automation, "running", inputs={"n": 1}, attempt=1, claimed_by="x")
        async with AutocommitWrites.open(app.state.engine) as writes:
            yield run.id, writes

    def _step_at(self, index: int) -> StepAt:
        step_id = THREE_STEPS["plan"][index]["step_id"]
        return StepAt(step_id, index, step_id, THREE_STEPS["plan"][index]["action"])

    async def test_a_cancel_stops_before_the_attempt_begins(self, app: Any, claimed: Any) -> None:
        run_id, writes = claimed
        journal = RunJournal(writes.write, run_id, 1)
        first = await journal.begin_step("plan", self._step_at(0), 1)
        await journal.finish_step(first, status="succeeded", output={"ok": True})
        async with app.state.sessionmaker() as session, session.begin():
            await session.execute(update(Run).where(Run.id == run_id).values(cancel_requested=True))

        with pytest.raises(StopRequested) as stopped:
            await journal.begin_step("plan", self._step_at(1), 1)

        assert stopped.value.reason == "cancelled"
        # The earlier attempt's end went out with the refused begin; no second record exists.
        assert [(s.step_index, s.status) for s in await _steps(app, run_id)] == [(0, "succeeded")]

    async def test_a_lost_claim_begins_nothing_and_still_records_the_last_end(
        self, app: Any, claimed: Any
    ) -> None:
        run_id, writes = claimed
        journal = RunJournal(writes.write, run_id, 1)
        first = await journal.begin_step("plan", self._step_at(0), 1)
        await journal.finish_step(first, status="failed", error={"code": "boom", "message": "x"})
        async with app.state.sessionmaker() as session, session.begin():
            # Another claim took the run (its lease had expired).
            await session.execute(update(Run).where(Run.id == run_id).values(attempt=2))

        with pytest.raises(ClaimLost):
            await journal.begin_step("plan", self._step_at(0), 2)

        steps = await _steps(app, run_id)
        assert [(s.attempt, s.status, s.error) for s in steps] == [
            (1, "failed", {"code": "boom", "message": "x"})
        ]
        assert steps[0].output is None

    async def test_a_failed_statement_leaves_the_writes_usable(self, app: Any, claimed: Any) -> None:
        run_id, writes = claimed
        with pytest.raises(IntegrityError):  # a record of a run that does not exist
            async with writes.write() as session:
                session.add(
                    RunStep(
                        id=uuid.uuid4(),
                        run_id=uuid.uuid4(),
                        phase="plan",
                        step_index=0,
                        step_id="x",
                        path="x",
                        action="x",
                        attempt=1,
                        status="running",
                    )
                )
        journal = RunJournal(writes.write, run_id, 1)
        record = await journal.begin_step("plan", self._step_at(0), 1)
        assert await journal.stop_reason() is None
        assert [s.id for s in await _steps(app, run_id)] == [record]

    async def test_concurrent_iterations_lose_no_attempt_end(self, app: Any, claimed: Any) -> None:
        run_id, writes = claimed
        journal = RunJournal(writes.write, run_id, 1)
        paths = [f"fan/{index}/shape" for index in range(5)]

        async def iteration(path: str) -> None:
            record = await journal.begin_step("plan", StepAt(path, 0, "shape", "transform_data"), 1)
            await asyncio.sleep(0)
            await journal.finish_step(record, status="succeeded", output={"path": path})

        await asyncio.gather(*(iteration(path) for path in paths))
        # Every end still waiting is written before the next record, the last one with it.
        await journal.begin_step("plan", StepAt("after", 1, "after", "transform_data"), 1)

        steps = {s.path: s for s in await _steps(app, run_id)}
        assert [(steps[p].status, steps[p].output_full) for p in paths] == [
            ("succeeded", {"path": p}) for p in paths
        ]
        assert steps["after"].status == "running"

    async def test_the_finish_gets_the_last_end_after_the_others_are_written(
        self, app: Any, claimed: Any
    ) -> None:
        run_id, writes = claimed
        journal = RunJournal(writes.write, run_id, 1)
        records = [
            await journal.begin_step("plan", StepAt(f"fan/{index}/shape", 0, "shape", "transform_data"), 1)
            for index in range(3)
        ]
        for record in records:
            await journal.finish_step(record, status="succeeded", output=1)

        last = await journal.take_ended()

        assert last is not None
        assert last.record_id == records[-1]
        statuses = {s.id: s.status for s in await _steps(app, run_id)}
        assert [statuses[r] for r in records] == ["succeeded", "succeeded", "running"]
        assert await journal.take_ended() is None
