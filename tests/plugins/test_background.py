"""Plugins that start things themselves, on the real stack (worker and beat): pollers and subscriptions."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar

from sqlalchemy import select

from app.integrations.http import GuardedHttp
from app.persistence.base import utcnow
from app.persistence.models import PluginTask
from app.persistence.transaction import transaction
from app.services.resources.plugin_tasks import TaskSettings, plugin_task_service
from tests.plugins.test_runs import run_of
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.runs import definition, start, wait_for

T = TypeVar("T")
NOOP = {"step_id": "noted", "action": "transform_data", "config": {"output": {"ok": True}}}


async def switch(caller: Caller, plugin_id: str, enabled: bool, settings: Any = None) -> Any:
    body: dict[str, Any] = {"enabled": enabled}
    if settings is not None:
        body["settings"] = settings
    return await caller.request("PUT", caller.space_path(f"/plugins/{plugin_id}"), json=body)


async def enable(caller: Caller, plugin_id: str, settings: dict[str, Any]) -> None:
    response = await switch(caller, plugin_id, True, settings)
    assert response.status_code == 200, response.text
    assert response.json()["settings"] == settings


async def until(probe: Callable[[], Awaitable[T | None]], what: str, timeout: float = 90) -> T:
    """Ask `probe` until it answers something; fail after `timeout` seconds naming `what`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = await probe()
        if found is not None:
            return found
        await asyncio.sleep(0.3)
    raise AssertionError(f"never saw {what}")


async def tasks(caller: Caller, plugin_id: str) -> list[dict[str, Any]]:
    response = await caller.request("GET", caller.space_path(f"/plugins/{plugin_id}/tasks?limit=200"))
    assert response.status_code == 200, response.text
    body: list[dict[str, Any]] = response.json()
    return body


async def events_of(caller: Caller, event_type: str) -> list[dict[str, Any]]:
    response = await caller.request("GET", caller.space_path("/events?limit=200"))
    assert response.status_code == 200, response.text
    return [event for event in response.json()["items"] if event["event_type"] == event_type]


async def listener(caller: Caller, event_type: str) -> str:
    automation = await caller.create_automation(
        definition(
            NOOP, name=f"On {event_type}", triggers=[{"type": "event", "config": {"event_type": event_type}}]
        )
    )
    response = await caller.request("POST", caller.space_path(f"/automations/{automation['id']}/activate"))
    assert response.status_code == 200, response.text
    return str(automation["id"])


class TestPollers:
    async def test_a_poller_emits_and_an_automation_listening_fires(
        self, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        await enable(owner, "pollster", {"mode": "emit"})
        listening = await listener(owner, "pollster.tick")
        heard = await run_of(owner, listening)
        assert heard["status"] == "succeeded", heard
        assert heard["trigger_payload"]["event_type"] == "pollster.tick"
        assert heard["trigger_payload"]["source_id"] == "plugin:pollster"
        assert heard["trigger_payload"]["payload"] == {"space_id": owner.space_id}
        done = [
            t for t in await tasks(owner, "pollster") if t["kind"] == "poller" and t["status"] == "succeeded"
        ]
        assert done
        assert done[0]["name"] == "beat"
        assert done[0]["emitted"] == 1
        await switch(owner, "pollster", False)

    async def test_the_uptime_poller_watches_the_spaces_pages(
        self, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        name = f"watched-{uuid.uuid4().hex[:6]}"
        site = f"{loopback.url}/status/503/{name}"
        await enable(owner, "uptime", {"urls": [site]})
        listening = await listener(owner, "uptime.site_down")
        heard = await run_of(owner, listening)
        assert heard["status"] == "succeeded", heard
        assert heard["trigger_payload"]["payload"] == {
            "url": site,
            "status_code": 503,
            "reason": "expected 200, got 503",
        }
        assert loopback.hits[name] >= 1
        await switch(owner, "uptime", False)

    async def test_a_poller_that_hangs_is_cut_at_its_bound_and_recorded(
        self, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        await enable(owner, "pollster", {"mode": "hang"})

        async def cut() -> dict[str, Any] | None:
            return next((t for t in await tasks(owner, "pollster") if t["status"] == "timed_out"), None)

        task = await until(cut, "a timed_out poller task")
        assert (task["kind"], task["name"]) == ("poller", "beat")
        assert task["error"]["code"] == "plugin_task_timeout"
        assert "1 s bound" in task["error"]["message"], (
            "the bound is the shorter of the timeout and the period"
        )
        assert task["finished_at"] is not None
        await switch(owner, "pollster", False)

    async def test_a_slot_is_queued_once_however_often_the_tick_runs(
        self, app: Any, factory: Factory
    ) -> None:
        owner = await factory.owner()
        await enable(owner, "pollster", {"mode": "quiet"})
        later = utcnow() + timedelta(days=3)  # a slot beat has not reached
        plugins = app.state.runtime.plugins
        counts = []
        for _ in range(2):
            async with transaction(app.state.sessionmaker, lambda job: None) as session:
                counts.append(await plugin_task_service.tick(session, plugins, later, 2))
        assert counts[0] >= 1
        assert counts[1] == 0
        await switch(owner, "pollster", False)


class TestSubscriptions:
    async def test_a_core_event_is_handed_over_once_and_only_after_enabling(
        self, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        _, before = await start(owner, definition(NOOP))
        assert (await wait_for(owner, before["id"]))["status"] == "succeeded"
        await enable(owner, "pollster", {"mode": "quiet"})
        _, first = await start(owner, definition(NOOP, name="First"))
        _, second = await start(owner, definition(NOOP, name="Second"))

        async def heard(run_id: str) -> list[dict[str, Any]] | None:
            found = [e for e in await events_of(owner, "pollster.heard") if e["payload"]["run_id"] == run_id]
            return found or None

        (answer,) = await until(lambda: heard(first["id"]), "the first run heard")
        assert answer["payload"]["event_type"] == "automation.run.succeeded"
        await until(lambda: heard(second["id"]), "the second run heard")
        assert len(await heard(first["id"]) or []) == 1, "handed over once, however many ticks saw it"
        assert await heard(before["id"]) is None, "events from before the plugin was enabled are not"
        deliveries = [
            t for t in await tasks(owner, "pollster") if t["event_id"] == answer["payload"]["event_id"]
        ]
        assert [(t["kind"], t["name"], t["status"]) for t in deliveries] == [
            ("subscription", "on_run_succeeded", "succeeded")
        ]
        await switch(owner, "pollster", False)


class TestSettings:
    async def test_settings_are_checked_against_the_plugins_schema(self, factory: Factory) -> None:
        owner = await factory.owner()
        for plugin_id, settings in [
            ("pollster", {"mode": "loud"}),
            ("pollster", {"extra": 1}),
            ("pollster", {"mode": {"$secret": "token"}}),
            ("uptime", {"urls": "https://example.com"}),
            ("misbehave", {"anything": True}),
        ]:
            response = await switch(owner, plugin_id, True, settings)
            assert response.status_code == 422, (plugin_id, settings, response.text)
            error = response.json()["error"]
            assert error["code"] == "invalid_plugin_settings"
            assert error["details"][0]["path"].startswith("/settings")
        response = await switch(owner, "pollster", True, [1])
        assert response.status_code == 422
        listed = (await owner.request("GET", owner.space_path("/plugins/pollster"))).json()
        assert (listed["enabled"], listed["settings"]) == (False, {}), "nothing changed"
        assert listed["registrations"]["pollers"] == [{"name": "beat", "every_seconds": 1.0}]
        assert listed["registrations"]["subscriptions"] == [
            {"name": "on_run_succeeded", "event_types": ["automation.run.succeeded"]}
        ]

    async def test_tasks_of_an_unknown_plugin_or_another_space(self, factory: Factory) -> None:
        owner, stranger = await factory.owner(), await factory.owner("Other")
        assert (await owner.request("GET", owner.space_path("/plugins/nope/tasks"))).status_code == 404
        response = await stranger.request(
            "GET", stranger.space_path("/plugins/pollster/tasks", owner.space_id)
        )
        assert response.status_code == 404
        assert (
            await owner.request("GET", owner.space_path("/plugins/pollster/tasks?limit=0"))
        ).status_code == 422


class TestOnce:
    async def test_two_workers_taking_one_task_run_it_once(self, app: Any, factory: Factory) -> None:
        owner = await factory.owner()
        # Quiet: beat (when the stack runs) polls this space too, and its polls must not count here.
        await enable(owner, "pollster", {"mode": "quiet"})
        plugins = app.state.runtime.plugins
        async with transaction(app.state.sessionmaker, lambda job: None) as session:
            await plugin_task_service.tick(session, plugins, utcnow() + timedelta(days=5), 2)
            (task_id,) = await session.scalars(
                select(PluginTask.id).where(
                    PluginTask.space_id == uuid.UUID(owner.space_id), PluginTask.status == "queued"
                )
            )

        def unit_of_work() -> Any:
            return transaction(app.state.sessionmaker, app.state.send_job)

        settings = TaskSettings(
            http=GuardedHttp(app.state.runtime.egress_allow), timeout_seconds=2, max_chain_depth=5
        )
        ends = await asyncio.gather(
            *(plugin_task_service.run(unit_of_work, task_id, plugins, settings) for _ in range(2))
        )
        assert sorted(ends) == ["not_taken", "succeeded"]
        (row,) = [t for t in await tasks(owner, "pollster") if t["id"] == str(task_id)]
        assert row["status"] == "succeeded"
        await switch(owner, "pollster", False)
