"""Event triggers: filtered matching, no cross-space matches, chains, cycles stopped, nothing lost."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select, update

from app.config import Settings
from app.definitions import run_states
from app.persistence.models import DomainEvent, EventTriggerGeneration, Run
from app.persistence.transaction import transaction
from app.services.triggers.events import event_service
from tests.support.factories import Caller, Factory
from tests.support.processes import worker_down
from tests.support.runs import wait_for
from tests.support.servers import flush_prefix, queued_task_ids


def _listener(
    event_type: str, filters: dict[str, Any] | None = None, name: str = "listener"
) -> dict[str, Any]:
    config: dict[str, Any] = {"event_type": event_type}
    if filters is not None:
        config["filters"] = filters
    return {
        "schema_version": "1.0",
        "name": name,
        "triggers": [{"type": "event", "config": config}],
        "plan": [
            {
                "step_id": "seen",
                "action": "transform_data",
                "config": {"output": "{{ trigger.payload }}"},
                "output_as": "seen",
            }
        ],
    }


async def _active(owner: Caller, definition: dict[str, Any]) -> str:
    automation = await owner.create_automation(definition)
    await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
    return str(automation["id"])


async def _publish(owner: Caller, event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    response = await owner.request(
        "POST",
        owner.space_path("/events"),
        json={"event_type": event_type, "payload": payload, "source_id": "test"},
    )
    assert response.status_code == 202, response.text
    body: dict[str, Any] = response.json()
    return body


async def _event(owner: Caller, event_id: str, timeout: float = 30) -> dict[str, Any]:
    for _ in range(int(timeout / 0.2)):
        event: dict[str, Any] = (await owner.request("GET", owner.space_path(f"/events/{event_id}"))).json()
        if event["dispatched_at"]:
            return event
        await asyncio.sleep(0.2)
    raise AssertionError(f"event {event_id} was not dispatched")


async def _runs_of(app: Any, automation_id: str) -> list[Run]:
    async with app.state.sessionmaker() as session:
        statement = select(Run).where(Run.automation_id == automation_id).order_by(Run.created_at)
        return list((await session.scalars(statement)).all())


async def _quiet(app: Any, space_id: str, timeout: float = 60) -> None:
    """Wait until nothing in the space can start another run: every run finished, every event dispatched.

    A run publishes its event in the transaction that finishes it, and a dispatch creates its runs in the
    transaction that marks the event dispatched, so a chain that is still going always shows one of them.
    """
    space = uuid.UUID(space_id)
    for _ in range(int(timeout / 0.2)):
        async with app.state.sessionmaker() as session:
            live = await session.scalar(
                select(func.count())
                .select_from(Run)
                .where(Run.space_id == space, Run.status.not_in(run_states.TERMINAL))
            )
            undispatched = await session.scalar(
                select(func.count())
                .select_from(DomainEvent)
                .where(DomainEvent.space_id == space, DomainEvent.dispatched_at.is_(None))
            )
        if live == 0 and undispatched == 0:
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"space {space_id} still busy after {timeout} s")


class TestMatching:
    async def test_filters_decide_which_triggers_fire(self, app, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        images = await _active(owner, _listener("drive.file_added", {"mime": {"starts_with": "image/"}}))
        everything = await _active(owner, _listener("drive.*"))
        other_type = await _active(owner, _listener("mail.received"))
        event = await _event(
            owner, (await _publish(owner, "drive.file_added", {"mime": "image/png", "size": 3}))["id"]
        )
        fired = {entry["trigger_id"] for entry in event["consumed_by"]}
        assert len(fired) == 2
        assert len(await _runs_of(app, images)) == 1
        assert len(await _runs_of(app, everything)) == 1
        assert await _runs_of(app, other_type) == []
        text = await _event(owner, (await _publish(owner, "drive.file_added", {"mime": "text/plain"}))["id"])
        assert len(text["consumed_by"]) == 1, "only the unfiltered prefix trigger"
        (run,) = await _runs_of(app, images)
        done = await wait_for(owner, str(run.id))
        assert done["output"]["seen"] == {"mime": "image/png", "size": 3}

    async def test_no_cross_space_matches(self, app, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        alice = await factory.owner()
        bob = await factory.owner()
        bobs = await _active(bob, _listener("drive.file_added"))
        event = await _event(alice, (await _publish(alice, "drive.file_added", {}))["id"])
        assert event["consumed_by"] == []
        assert await _runs_of(app, bobs) == []

    async def test_paused_automations_do_not_hear_events(self, app, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        paused = (await owner.create_automation(_listener("drive.file_added")))["id"]
        event = await _event(owner, (await _publish(owner, "drive.file_added", {}))["id"])
        assert event["consumed_by"] == []
        assert await _runs_of(app, paused) == []


class TestChains:
    async def test_a_then_b_then_c(self, app, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        a = await _active(owner, _listener("orders.created", name="A"))
        b_definition = _listener("automation.run.succeeded", {"automation_id": a}, name="B")
        b = await _active(owner, b_definition)
        c = await _active(owner, _listener("automation.run.succeeded", {"automation_id": b}, name="C"))
        await _publish(owner, "orders.created", {"order": 1})
        for automation_id, depth in ((a, 1), (b, 2), (c, 3)):
            for _ in range(150):
                runs = await _runs_of(app, automation_id)
                if runs:
                    break
                await asyncio.sleep(0.2)
            (run,) = runs
            assert run.chain_depth == depth
            assert (await wait_for(owner, str(run.id)))["status"] == "succeeded"

    async def test_a_cycle_stops_at_depth_10(self, app, factory: Factory, stack, settings: Settings) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        loop = await _active(owner, _listener("automation.run.*", name="Loop"))
        await _publish(owner, "kick.off", {})  # not heard: nothing runs
        await owner.request(
            "POST", owner.space_path(f"/automations/{loop}/runs")
        )  # depth 0, then it hears itself
        for _ in range(300):
            runs = await _runs_of(app, loop)
            if any(r.reason == "chain_depth_exceeded" for r in runs):
                break
            await asyncio.sleep(0.2)
        runs = await _runs_of(app, loop)
        dropped = [r for r in runs if r.status == "dropped"]
        assert len(dropped) == 1
        assert dropped[0].reason == "chain_depth_exceeded"
        assert max(r.chain_depth for r in runs if r.status != "dropped") == settings.max_chain_depth
        await _quiet(app, owner.space_id)
        assert len(await _runs_of(app, loop)) == len(runs), "the chain has stopped"


class TestNothingLost:
    async def test_event_published_while_workers_are_down(
        self, app, factory: Factory, stack, settings: Settings
    ) -> None:  # type: ignore[no-untyped-def]
        worker, _ = stack
        owner = await factory.owner()
        listener = await _active(owner, _listener("drive.file_added", name=f"late-{uuid.uuid4().hex[:4]}"))
        redis_url = settings.resolved_redis_url()
        with worker_down(worker, settings):
            published = await _publish(owner, "drive.file_added", {"n": 1})
            # The dispatch's wake-up is queued, and then lost with everything else of this session's broker.
            assert published["id"] in queued_task_ids(redis_url, settings.redis_key_prefix, "system")
            flush_prefix(redis_url, settings.redis_key_prefix)
        event = await _event(owner, published["id"], timeout=60)
        assert len(event["consumed_by"]) == 1
        (run,) = await _runs_of(app, listener)
        assert (await wait_for(owner, str(run.id)))["status"] == "succeeded"


class TestSweeper:
    async def test_expired_events_are_deleted_and_stale_ones_re_enqueued(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        sent: list[Any] = []
        # A day ahead: a beat still ticking from other tests (on real time) sees none of this as due.
        now = datetime.now(UTC) + timedelta(days=1)
        async with transaction(app.state.sessionmaker, sent.append) as session:
            old = await event_service.publish(session, uuid.UUID(owner.space_id), "x.old", {}, None)
            stale = await event_service.publish(session, uuid.UUID(owner.space_id), "x.stale", {}, None)
            # The published event is a plain copy of its row: age the rows themselves.
            await session.execute(
                update(DomainEvent)
                .where(DomainEvent.id == old.id)
                .values(expires_at=now - timedelta(seconds=1))
            )
            await session.execute(
                update(DomainEvent)
                .where(DomainEvent.id == stale.id)
                .values(created_at=now - timedelta(minutes=1))
            )
        sent.clear()
        async with transaction(app.state.sessionmaker, sent.append) as session:
            requeued, deleted = await event_service.sweep(session, now, stale_after=timedelta(seconds=10))
        assert deleted == 1
        assert requeued == 1
        assert [(job.name, job.args) for job in sent] == [("events.dispatch", (str(stale.id),))]
        async with app.state.sessionmaker() as session:
            remaining = (await session.scalars(select(DomainEvent.event_type))).all()
        assert set(remaining) == {"x.stale"}


async def _dispatch_here(app: Any, space_id: str, event_type: str, payload: dict[str, Any]) -> list[str]:
    """Publish and dispatch one event in-process (no worker): the trigger ids it fired."""
    sent: list[Any] = []
    async with transaction(app.state.sessionmaker, sent.append) as session:
        event = await event_service.publish(session, uuid.UUID(space_id), event_type, payload, "test")
    async with transaction(app.state.sessionmaker, sent.append) as session:
        report = await event_service.dispatch(session, event.id, limits=app.state.limits, max_chain_depth=10)
    assert report is not None
    async with app.state.sessionmaker() as session:
        stored = await session.get(DomainEvent, event.id)
        assert stored is not None
        return [entry["trigger_id"] for entry in stored.consumed_by]


async def _generation(app: Any, space_id: str) -> int:
    async with app.state.sessionmaker() as session:
        statement = select(EventTriggerGeneration.generation).where(
            EventTriggerGeneration.space_id == uuid.UUID(space_id)
        )
        return int((await session.execute(statement)).scalar_one_or_none() or 0)


class TestIndexFreshness:
    async def test_an_edited_filter_matches_from_the_next_event_on(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation_id = await _active(owner, _listener("ci.build", {"repo": "acme/api"}))
        (trigger,) = (await owner.request("GET", owner.space_path(f"/automations/{automation_id}"))).json()[
            "triggers"
        ]
        assert await _dispatch_here(app, owner.space_id, "ci.build", {"repo": "acme/api"}) == [trigger["id"]]
        assert await _dispatch_here(app, owner.space_id, "ci.build", {"repo": "acme/web"}) == []
        before = await _generation(app, owner.space_id)

        response = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{automation_id}"),
            json={"definition": _listener("ci.build", {"repo": {"in": ["acme/web", "acme/docs"]}})},
            headers={"If-Match": '"1"'},
        )
        assert response.status_code == 200, response.text
        assert await _generation(app, owner.space_id) > before
        assert await _dispatch_here(app, owner.space_id, "ci.build", {"repo": "acme/api"}) == []
        assert await _dispatch_here(app, owner.space_id, "ci.build", {"repo": "acme/web"}) == [trigger["id"]]

    async def test_firing_does_not_invalidate_the_index(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        await _active(owner, _listener("ci.build", {"repo": "acme/api"}))
        await _dispatch_here(app, owner.space_id, "ci.build", {"repo": "acme/api"})
        generation = await _generation(app, owner.space_id)
        assert generation > 0
        # A fire writes the trigger's last_fired_at (and updated_at): matching reads neither.
        await _dispatch_here(app, owner.space_id, "ci.build", {"repo": "acme/api"})
        assert await _generation(app, owner.space_id) == generation

    async def test_a_removed_trigger_no_longer_fires(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation_id = await _active(owner, _listener("ci.build"))
        assert len(await _dispatch_here(app, owner.space_id, "ci.build", {})) == 1
        response = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{automation_id}"),
            json={"definition": {**_listener("mail.received"), "name": "now on mail"}},
            headers={"If-Match": '"1"'},
        )
        assert response.status_code == 200, response.text
        assert await _dispatch_here(app, owner.space_id, "ci.build", {}) == []
        assert len(await _dispatch_here(app, owner.space_id, "mail.received", {})) == 1
