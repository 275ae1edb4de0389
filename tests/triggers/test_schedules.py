"""Schedule triggers driven by an injected clock: one fire per slot, no bursts, pause and edit behave."""

from __future__ import annotations

import asyncio
import copy
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select, update

from app.persistence.models import AutomationTrigger, Run
from app.persistence.transaction import transaction
from app.services.runs.limits import DispatchLimits
from app.services.triggers.schedules import schedule_service
from tests.support.factories import Caller, Factory

DAILY = {
    "schema_version": "1.0",
    "name": "Morning",
    "triggers": [{"type": "schedule", "config": {"cron": "0 9 * * *", "timezone": "Europe/Berlin"}}],
    "plan": [
        {"step_id": "a", "action": "transform_data", "config": {"output": "{{ trigger.scheduled_for }}"}}
    ],
}


async def _tick(app: Any, now: datetime) -> Any:
    async with transaction(app.state.sessionmaker, lambda job: None) as session:
        return await schedule_service.tick(session, now, DispatchLimits())


async def _trigger(app: Any, automation_id: str) -> AutomationTrigger:
    async with app.state.sessionmaker() as session:
        return (
            await session.scalars(
                select(AutomationTrigger).where(AutomationTrigger.automation_id == automation_id)
            )
        ).one()


async def _set_next(app: Any, automation_id: str, when: datetime | None) -> None:
    async with app.state.sessionmaker() as session:
        await session.execute(
            update(AutomationTrigger)
            .where(AutomationTrigger.automation_id == automation_id)
            .values(next_fire_at=when)
        )
        await session.commit()


async def _runs(app: Any, automation_id: str) -> list[Run]:
    async with app.state.sessionmaker() as session:
        return list(
            (
                await session.scalars(
                    select(Run).where(Run.automation_id == automation_id).order_by(Run.created_at)
                )
            ).all()
        )


def _nine_in_berlin(days_ahead: int) -> datetime:
    """09:00 in Berlin `days_ahead` days from today, in UTC. Beat ticks on real time during the suite,
    so every slot a test sets lies in the future: only the test's own ticks fire it."""
    day = (datetime.now(UTC) + timedelta(days=days_ahead)).date()
    return datetime(day.year, day.month, day.day, 9, tzinfo=ZoneInfo("Europe/Berlin")).astimezone(UTC)


def _future_slot() -> datetime:
    """A 09:00 Berlin slot some days ahead (see `_nine_in_berlin`)."""
    return _nine_in_berlin(3)


async def _active(owner: Caller, definition: dict[str, Any] = DAILY) -> str:
    automation = await owner.create_automation(copy.deepcopy(definition))
    await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
    return str(automation["id"])


class TestScheduleTick:
    async def test_activation_sets_the_next_local_slot(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation = await owner.create_automation(copy.deepcopy(DAILY))
        assert automation["triggers"][0]["next_fire_at"] is None, "paused: no schedule"
        activated = (
            await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
        ).json()
        next_fire = datetime.fromisoformat(activated["triggers"][0]["next_fire_at"])
        local = next_fire.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Berlin"))
        assert (local.hour, local.minute) == (9, 0)
        assert next_fire > datetime.now(UTC)

    async def test_due_trigger_fires_once_with_its_payload(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation_id = await _active(owner)
        slot = _future_slot()
        await _set_next(app, automation_id, slot)
        report = await _tick(app, slot + timedelta(seconds=2))
        assert report.fired >= 1
        again = await _tick(app, slot + timedelta(seconds=3))
        assert again.fired == 0
        (run,) = await _runs(app, automation_id)
        assert run.trigger_type == "schedule"
        assert run.trigger_payload["scheduled_for"] == slot.isoformat()
        assert run.trigger_payload["last_fired_at"] is None
        trigger = await _trigger(app, automation_id)
        assert trigger.next_fire_at == _nine_in_berlin(4)
        assert trigger.last_fired_at is not None

    async def test_missed_slots_fire_once_for_the_latest(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation_id = await _active(owner)
        await _set_next(app, automation_id, _nine_in_berlin(3))
        await _tick(app, _nine_in_berlin(6) + timedelta(hours=4))  # three days of downtime
        (run,) = await _runs(app, automation_id)
        assert run.trigger_payload["scheduled_for"] == _nine_in_berlin(6).isoformat()

    async def test_catch_up_none_skips_missed_slots(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        definition = copy.deepcopy(DAILY)
        definition["triggers"][0]["config"]["catch_up"] = "none"
        automation_id = await _active(owner, definition)
        await _set_next(app, automation_id, _nine_in_berlin(3))
        await _tick(app, _nine_in_berlin(6) + timedelta(hours=4))
        assert await _runs(app, automation_id) == []
        trigger = await _trigger(app, automation_id)
        assert trigger.next_fire_at == _nine_in_berlin(7)

    async def test_two_concurrent_ticks_fire_each_slot_once(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        ids = [await _active(owner) for _ in range(5)]
        slot = _future_slot()
        for automation_id in ids:
            await _set_next(app, automation_id, slot)
        await asyncio.gather(_tick(app, slot + timedelta(seconds=1)), _tick(app, slot + timedelta(seconds=1)))
        for automation_id in ids:
            assert len(await _runs(app, automation_id)) == 1

    async def test_two_ticks_draining_in_small_batches_fire_each_slot_once(
        self, app, factory: Factory
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        ids = [await _active(owner) for _ in range(12)]
        slot = _future_slot()
        for automation_id in ids:
            await _set_next(app, automation_id, slot)
        now = slot + timedelta(seconds=1)

        async def drain() -> int:
            fired = 0
            while True:  # as beat's task does: one transaction per batch until a batch comes back short
                async with transaction(app.state.sessionmaker, lambda job: None) as session:
                    report = await schedule_service.tick(session, now, DispatchLimits(), batch=3)
                fired += report.fired
                if report.due < 3:
                    return fired

        first, second = await asyncio.gather(drain(), drain())
        assert first + second == len(ids)
        for automation_id in ids:
            (run,) = await _runs(app, automation_id)
            assert run.trigger_payload["scheduled_for"] == slot.isoformat()
            trigger = await _trigger(app, automation_id)
            assert trigger.next_fire_at == slot + timedelta(days=1)
            assert trigger.last_fired_at == now

    async def test_a_refused_fire_in_a_batch_leaves_the_others_firing(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        serial = copy.deepcopy(DAILY)
        serial["execution"] = {"concurrency": "drop_if_running"}
        plain = [await _active(owner) for _ in range(3)]
        dropped = await _active(owner, serial)
        broken = await _active(owner)
        slot = _future_slot()
        for automation_id in [*plain, dropped, broken]:
            await _set_next(app, automation_id, slot)
        async with app.state.sessionmaker() as session:  # a cron the engine refuses: the trigger stops
            await session.execute(
                update(AutomationTrigger)
                .where(AutomationTrigger.automation_id == broken)
                .values(config={"cron": "not a cron", "timezone": "UTC"})
            )
            await session.commit()
        report = await _tick(app, slot + timedelta(seconds=1))
        assert report.fired == 4
        for automation_id in [*plain, dropped]:
            assert len(await _runs(app, automation_id)) == 1
        assert await _runs(app, broken) == []
        assert (await _trigger(app, broken)).next_fire_at is None

    async def test_pause_stops_and_activate_restarts_from_now(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation_id = await _active(owner)
        await owner.request("POST", owner.space_path(f"/automations/{automation_id}/pause"))
        assert (await _trigger(app, automation_id)).next_fire_at is None
        await _tick(app, datetime(2030, 1, 1, tzinfo=UTC))
        assert await _runs(app, automation_id) == []
        await owner.request("POST", owner.space_path(f"/automations/{automation_id}/activate"))
        assert (await _trigger(app, automation_id)).next_fire_at > datetime.now(UTC)

    async def test_editing_the_cron_recomputes_next_fire(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation_id = await _active(owner)
        before = (await _trigger(app, automation_id)).next_fire_at
        changed = copy.deepcopy(DAILY)
        changed["triggers"][0]["config"]["cron"] = "30 18 * * *"
        await owner.request(
            "PUT",
            owner.space_path(f"/automations/{automation_id}"),
            json={"definition": changed, "version": 1},
        )
        after = (await _trigger(app, automation_id)).next_fire_at
        assert after is not None
        assert after != before
        assert after.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Berlin")).hour == 18
