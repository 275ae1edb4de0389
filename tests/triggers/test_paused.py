"""A paused automation: its triggers are off. Every kind of trigger fire is refused and leaves no run;
run now still works, to try the automation before activating it."""

from __future__ import annotations

import copy
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, update

from app.definitions.run_states import RunStatus
from app.errors import Conflict
from app.persistence.models import AutomationTrigger, Run
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.transaction import transaction
from app.services.runs.dispatch import dispatcher
from app.services.runs.fire_request import FireRequest
from app.services.runs.limits import DispatchLimits
from app.services.triggers.schedules import schedule_service
from tests.support.factories import Caller, Factory, minimal_definition

SCHEDULED = minimal_definition(
    name="Scheduled", triggers=[{"type": "schedule", "config": {"cron": "0 9 * * *", "timezone": "UTC"}}]
)
LISTENING = minimal_definition(
    name="Listening", triggers=[{"type": "event", "config": {"event_type": "orders.created"}}]
)
HOOKED = minimal_definition(name="Hooked", triggers=[{"type": "webhook", "config": {}}])


async def _run_count(app: Any, automation_id: str) -> int:
    async with app.state.sessionmaker() as session:
        statement = select(func.count()).select_from(Run).where(Run.automation_id == uuid.UUID(automation_id))
        return int((await session.execute(statement)).scalar_one())


async def _post(owner: Caller, path: str, **kwargs: Any) -> dict[str, Any]:
    response = await owner.request("POST", owner.space_path(path), **kwargs)
    assert response.status_code in (200, 201, 202), response.text
    body: dict[str, Any] = response.json()
    return body


async def _paused_after_activation(owner: Caller, definition: dict[str, Any]) -> dict[str, Any]:
    """Activated once (so its triggers were live), then paused."""
    automation = await owner.create_automation(copy.deepcopy(definition))
    await _post(owner, f"/automations/{automation['id']}/activate")
    return await _post(owner, f"/automations/{automation['id']}/pause")


class TestEveryTriggerKind:
    @pytest.mark.parametrize("kind", ["schedule", "webhook", "event"])
    async def test_the_dispatcher_refuses_a_trigger_fire_and_writes_nothing(
        self, app: Any, factory: Factory, kind: Any
    ) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation()  # saved paused
        async with transaction(app.state.sessionmaker, lambda job: None) as session:
            row = await AutomationRepository(session).get_by_id(uuid.UUID(automation["id"]))
            assert row is not None
            with pytest.raises(Conflict) as refused:
                await dispatcher.fire(session, (row, FireRequest(trigger_type=kind)), DispatchLimits())
        assert refused.value.code == "automation_paused"
        assert await _run_count(app, automation["id"]) == 0

    async def test_run_now_works_on_a_paused_automation(self, app: Any, factory: Factory) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation()
        run = await _post(owner, f"/automations/{automation['id']}/runs", json={"inputs": {}})
        assert run["status"] == RunStatus.pending
        assert await _run_count(app, automation["id"]) == 1

    async def test_an_archived_automation_refuses_run_now_too(self, app: Any, factory: Factory) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation()
        await _post(owner, f"/automations/{automation['id']}/archive")
        response = await owner.request(
            "POST", owner.space_path(f"/automations/{automation['id']}/runs"), json={"inputs": {}}
        )
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "automation_archived"
        assert await _run_count(app, automation["id"]) == 0


class TestWebhook:
    async def test_a_paused_webhook_answers_409_and_records_no_run(self, app: Any, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation(copy.deepcopy(HOOKED))
        token = created["triggers"][0]["token"]
        await _post(owner, f"/automations/{created['id']}/activate")
        await _post(owner, f"/automations/{created['id']}/pause")
        fire = await owner.client.post(
            f"/api/v1/automations/{created['id']}/fire", json={}, headers={"Authorization": f"Bearer {token}"}
        )
        assert fire.status_code == 409
        assert fire.json()["error"]["code"] == "automation_paused"
        assert await _run_count(app, created["id"]) == 0
        await _post(owner, f"/automations/{created['id']}/activate")
        again = await owner.client.post(
            f"/api/v1/automations/{created['id']}/fire", json={}, headers={"Authorization": f"Bearer {token}"}
        )
        assert again.status_code == 202, "the same token works again once active"


class TestSchedule:
    async def test_a_due_slot_of_a_paused_automation_is_skipped_without_a_run(
        self, app: Any, factory: Factory
    ) -> None:
        owner = await factory.owner()
        automation = await _paused_after_activation(owner, SCHEDULED)
        # A pause clears next_fire_at; a tick that raced with the pause still sees the old slot due.
        # Years ahead: a beat still ticking from other tests (on real time) never sees it due.
        slot = datetime(2030, 1, 1, 9, 0, tzinfo=UTC)
        async with app.state.sessionmaker() as session:
            await session.execute(
                update(AutomationTrigger)
                .where(AutomationTrigger.automation_id == uuid.UUID(automation["id"]))
                .values(next_fire_at=slot)
            )
            await session.commit()
        async with transaction(app.state.sessionmaker, lambda job: None) as session:
            report = await schedule_service.tick(session, slot + timedelta(seconds=1), DispatchLimits())
        assert (report.due, report.fired, report.skipped) == (1, 0, 1)
        assert await _run_count(app, automation["id"]) == 0
        async with app.state.sessionmaker() as session:
            trigger = (
                await session.scalars(
                    select(AutomationTrigger).where(
                        AutomationTrigger.automation_id == uuid.UUID(automation["id"])
                    )
                )
            ).one()
        assert trigger.next_fire_at == slot + timedelta(days=1), "the skipped slot is not fired later"
        assert trigger.last_fired_at is None


class TestEvent:
    async def test_an_event_published_while_paused_is_not_heard_even_after_activation(
        self, app: Any, factory: Factory
    ) -> None:
        from app.services.triggers.events import event_service

        owner = await factory.owner()
        automation = await _paused_after_activation(owner, LISTENING)
        space_id = uuid.UUID(owner.space_id)
        async with transaction(app.state.sessionmaker, lambda job: None) as session:
            while_paused = await event_service.publish(session, space_id, "orders.created", {"n": 1}, None)
        async with transaction(app.state.sessionmaker, lambda job: None) as session:
            report = await event_service.dispatch(
                session, while_paused.id, limits=DispatchLimits(), max_chain_depth=10
            )
        assert report is not None
        assert (report.matched, report.fired) == (0, 0)
        assert await _run_count(app, automation["id"]) == 0

        await _post(owner, f"/automations/{automation['id']}/activate")
        async with transaction(app.state.sessionmaker, lambda job: None) as session:
            after = await event_service.publish(session, space_id, "orders.created", {"n": 2}, None)
        async with transaction(app.state.sessionmaker, lambda job: None) as session:
            heard = await event_service.dispatch(
                session, after.id, limits=DispatchLimits(), max_chain_depth=10
            )
            again = await event_service.dispatch(
                session, while_paused.id, limits=DispatchLimits(), max_chain_depth=10
            )
        assert heard is not None
        assert heard.fired == 1, "the live trigger hears the next event"
        assert again is None, "the event from the paused time stays dispatched: it is not replayed"
        async with app.state.sessionmaker() as session:
            (run,) = (
                await session.scalars(select(Run).where(Run.automation_id == uuid.UUID(automation["id"])))
            ).all()
        assert run.trigger_payload["payload"] == {"n": 2}
