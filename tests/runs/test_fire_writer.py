"""The fire writer on real PostgreSQL: each plan shape and the statements it sends, counted by the
engine's `before_cursor_execute` (BEGIN and COMMIT are not statements: they are counted apart)."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import FastAPI
from sqlalchemy import event, func, select

from app.definitions.run_states import RunStatus
from app.persistence.base import utcnow
from app.persistence.models import AutomationTrigger, Run
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.transaction import autocommit, in_autocommit, transaction
from app.persistence.types import AsyncSession
from app.persistence.writer.fire import RunRow, fire_writer, statements_for
from app.services.runs.dispatch import dispatcher
from app.services.runs.fire_plan import FirePlan, plan_fire
from app.services.runs.fire_request import FireRequest
from app.services.runs.limits import EXECUTE_TASK, DispatchLimits
from tests.support.factories import Caller, Factory, minimal_definition

HOOKED = minimal_definition(name="Hooked", triggers=[{"type": "webhook", "config": {}}])


class Statements:
    """The first keyword of each statement the engine sends while the block runs."""

    def __init__(self, app: FastAPI) -> None:
        self.engine = app.state.engine.sync_engine
        self.sent: list[str] = []

    def _one(self, _conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        self.sent.append(statement.split(None, 1)[0].upper())

    @contextmanager
    def counting(self) -> Iterator[list[str]]:
        self.sent.clear()
        event.listen(self.engine, "before_cursor_execute", self._one)
        try:
            yield self.sent
        finally:
            event.remove(self.engine, "before_cursor_execute", self._one)


async def _automation(owner: Caller, **execution: Any) -> tuple[uuid.UUID, uuid.UUID]:
    definition = copy.deepcopy(HOOKED)
    if execution:
        definition["execution"] = execution
    created = await owner.create_automation(definition)
    response = await owner.request("POST", owner.space_path(f"/automations/{created['id']}/activate"))
    assert response.status_code == 200, response.text
    return uuid.UUID(created["id"]), uuid.UUID(created["triggers"][0]["id"])


async def _plan(
    session: AsyncSession, automation_id: uuid.UUID, request: FireRequest, *, stamped: bool = False
) -> FirePlan:
    automation = await AutomationRepository(session).get_by_id(automation_id)
    assert automation is not None
    plan = await plan_fire(session, automation, request, DispatchLimits(), utcnow() if stamped else None)
    assert isinstance(plan, FirePlan)
    return plan


async def _runs_of(app: FastAPI, automation_id: uuid.UUID) -> list[Run]:
    async with app.state.sessionmaker() as session:
        found = await session.scalars(select(Run).where(Run.automation_id == automation_id))
        return list(found)


async def _last_fired_at(app: FastAPI, trigger_id: uuid.UUID) -> Any:
    async with app.state.sessionmaker() as session:
        statement = select(AutomationTrigger.last_fired_at).where(AutomationTrigger.id == trigger_id)
        return (await session.execute(statement)).scalar_one()


def _sent_nowhere(job: Any) -> None:
    """The post-commit sender: the runs stay as the writer left them."""


class TestWriterShapes:
    async def test_one_stamped_run_is_one_statement_and_keeps_autocommit(
        self, app: FastAPI, factory: Factory
    ) -> None:
        automation_id, trigger_id = await _automation(await factory.owner())
        statements = Statements(app)
        async with transaction(app.state.sessionmaker, _sent_nowhere) as session:
            await autocommit(session)
            request = FireRequest(trigger_type="webhook", trigger_id=trigger_id)
            plan = await _plan(session, automation_id, request, stamped=True)
            row = plan.row()
            assert row.stamp is not None
            assert row.wake_up is not None
            assert row.wake_up.task == EXECUTE_TASK
            with statements.counting() as sent:
                [run] = await fire_writer.insert(session, [row])
            assert in_autocommit(session)
        assert sent == ["WITH"], "the INSERT and the trigger's stamp in one statement"
        [stored] = await _runs_of(app, automation_id)
        assert stored.id == run.id
        assert stored.status is RunStatus.pending
        assert await _last_fired_at(app, trigger_id) is not None

    async def test_a_stamped_run_with_more_to_follow_leaves_autocommit(
        self, app: FastAPI, factory: Factory
    ) -> None:
        automation_id, trigger_id = await _automation(await factory.owner())
        statements = Statements(app)
        async with transaction(app.state.sessionmaker, _sent_nowhere) as session:
            await autocommit(session)
            request = FireRequest(trigger_type="webhook", trigger_id=trigger_id)
            plan = await _plan(session, automation_id, request, stamped=True)
            with statements.counting() as sent:
                await fire_writer.insert(session, [plan.row()], more_follows=True)
            assert not in_autocommit(session)
        assert sent == ["WITH"]

    async def test_many_runs_without_stamps_are_one_multi_row_insert(
        self, app: FastAPI, factory: Factory
    ) -> None:
        automation_id, _ = await _automation(await factory.owner())
        statements = Statements(app)
        async with transaction(app.state.sessionmaker, _sent_nowhere) as session:
            plans = [
                await _plan(session, automation_id, FireRequest(trigger_type="schedule")) for _ in range(5)
            ]
            rows = [plan.row() for plan in plans]
            assert statements_for(rows) == 1
            with statements.counting() as sent:
                made = await fire_writer.insert(session, rows)
        assert sent == ["INSERT"]
        stored = {run.id for run in await _runs_of(app, automation_id)}
        assert stored == {run.id for run in made}
        assert len(stored) == 5

    async def test_stamped_and_plain_runs_together_take_a_transaction(
        self, app: FastAPI, factory: Factory
    ) -> None:
        automation_id, trigger_id = await _automation(await factory.owner())
        statements = Statements(app)
        async with transaction(app.state.sessionmaker, _sent_nowhere) as session:
            await autocommit(session)
            stamped = await _plan(
                session,
                automation_id,
                FireRequest(trigger_type="webhook", trigger_id=trigger_id),
                stamped=True,
            )
            plain = [
                await _plan(session, automation_id, FireRequest(trigger_type="manual")) for _ in range(2)
            ]
            rows: list[RunRow] = [stamped.row(), *(plan.row() for plan in plain)]
            assert statements_for(rows) == 2
            with statements.counting() as sent:
                made = await fire_writer.insert(session, rows)
            assert not in_autocommit(session)
        assert sent == ["WITH", "INSERT"]
        assert [run.id for run in made] == [row.values["id"] for row in rows], "answers keep their order"
        assert len(await _runs_of(app, automation_id)) == 3


async def _fire(
    app: FastAPI, automation_id: uuid.UUID, request: FireRequest, *, in_autocommit_mode: bool = False
) -> tuple[list[str], Any]:
    statements = Statements(app)
    async with transaction(app.state.sessionmaker, _sent_nowhere) as session:
        if in_autocommit_mode:
            await autocommit(session)
        automation = await AutomationRepository(session).get_by_id(automation_id)
        assert automation is not None
        with statements.counting() as sent:
            result = await dispatcher.fire(
                session, (automation, request), DispatchLimits(), note_fired_at=utcnow()
            )
    return list(sent), result


class TestPlanShapesThroughTheDispatcher:
    async def test_a_common_trigger_fire_is_one_statement(self, app: FastAPI, factory: Factory) -> None:
        automation_id, trigger_id = await _automation(await factory.owner())
        request = FireRequest(trigger_type="webhook", trigger_id=trigger_id)
        sent, result = await _fire(app, automation_id, request, in_autocommit_mode=True)
        assert sent == ["WITH"]
        assert result.outcome == "created"
        assert result.created

    async def test_a_keyed_fire_locks_checks_the_key_then_inserts(
        self, app: FastAPI, factory: Factory
    ) -> None:
        automation_id, trigger_id = await _automation(await factory.owner())
        request = FireRequest(trigger_type="webhook", trigger_id=trigger_id, idempotency_key="delivery-1")
        sent, first = await _fire(app, automation_id, request, in_autocommit_mode=True)
        # The automation's row lock, the expired key's release, the key's look-up, the stamped INSERT.
        assert sent == ["SELECT", "UPDATE", "SELECT", "WITH"]
        assert first.outcome == "created"
        sent, again = await _fire(app, automation_id, request, in_autocommit_mode=True)
        assert sent == ["SELECT", "UPDATE", "SELECT"], "a repeat writes no run"
        assert again.outcome == "deduplicated"
        assert not again.created
        assert again.run.id == first.run.id

    async def test_a_queue_policy_counts_in_flight_runs_under_the_lock(
        self, app: FastAPI, factory: Factory
    ) -> None:
        automation_id, _ = await _automation(await factory.owner(), concurrency="queue")
        request = FireRequest(trigger_type="manual")
        sent, first = await _fire(app, automation_id, request)
        assert sent == ["SELECT", "SELECT", "INSERT"], "lock, count in flight, insert"
        assert first.outcome == "created"
        sent, second = await _fire(app, automation_id, request)
        assert sent == ["SELECT", "SELECT", "INSERT"]
        assert second.outcome == "queued"
        assert second.run.reason == "waiting_for_previous_run"

    async def test_a_dropped_live_fire_writes_its_run_then_its_notices(
        self, app: FastAPI, factory: Factory
    ) -> None:
        owner = await factory.owner()
        automation_id, trigger_id = await _automation(owner)
        request = FireRequest(
            trigger_type="webhook", trigger_id=trigger_id, refuse_reason="chain_depth_exceeded"
        )
        sent, result = await _fire(app, automation_id, request, in_autocommit_mode=True)
        assert result.outcome == "dropped"
        assert result.run.reason == "chain_depth_exceeded"
        # The stamped INSERT first; then the outbox asks which endpoints listen (none here).
        assert sent[0] == "WITH"
        assert len(sent) == 2
        [stored] = await _runs_of(app, automation_id)
        assert stored.status is RunStatus.dropped

    async def test_a_batch_writes_its_settled_fires_in_one_insert(
        self, app: FastAPI, factory: Factory
    ) -> None:
        owner = await factory.owner()
        parallel, _ = await _automation(owner)
        serial, _ = await _automation(owner, concurrency="drop_if_running")
        statements = Statements(app)
        async with transaction(app.state.sessionmaker, _sent_nowhere) as session:
            rows = await AutomationRepository(session).get_many({parallel, serial})
            by_id = {row.id: row for row in rows}
            fires = [(by_id[parallel], FireRequest(trigger_type="schedule")) for _ in range(3)]
            fires.append((by_id[serial], FireRequest(trigger_type="schedule")))
            with statements.counting() as sent:
                answers = await dispatcher.fire(session, fires, DispatchLimits())
        # One INSERT for the three settled fires; the serial one in a savepoint: lock, count, insert.
        assert sent == ["INSERT", "SAVEPOINT", "SELECT", "SELECT", "INSERT", "RELEASE"]
        assert [getattr(answer, "outcome", None) for answer in answers] == ["created"] * 4
        async with app.state.sessionmaker() as session:
            count = select(func.count()).select_from(Run).where(Run.automation_id.in_([parallel, serial]))
            assert (await session.execute(count)).scalar_one() == 4
