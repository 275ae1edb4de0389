"""The live-runs hub keeps listening when PostgreSQL drops its LISTEN connection, or the network cuts
it without a word: it listens again on a new connection, and hands its subscribers the changes made
while nobody heard them."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.engine.claim_ports import Outcome
from app.persistence.db import create_engine
from app.persistence.run_events import RunChange, RunEventHub, Subscription, parse_access_change
from tests.support.factories import Caller, Factory, minimal_definition
from tests.support.held_runs import claim, finish, fire, suspended
from tests.support.tcp_proxy import SilentProxy

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
async def hub(settings: Settings) -> AsyncIterator[RunEventHub]:
    """A hub on an engine of its own, named so the tests find its backends and nobody else's."""
    own = create_engine(settings.resolved_database_url(), pool_size=2, application_name=HUB_APP)
    events = RunEventHub(own)
    yield events
    await events.close()
    await own.dispose()


HUB_APP = f"hub-test-{uuid.uuid4().hex[:8]}"
LISTENERS = (
    "FROM pg_stat_activity WHERE query ILIKE 'LISTEN%run_changes%' AND datname = current_database()"
    f" AND application_name = '{HUB_APP}'"
)


async def _terminate_listeners(engine: AsyncEngine) -> set[int]:
    """End the hub's listening backend, as a restart or an operator would."""
    async with engine.connect() as connection:
        rows = await connection.execute(text(f"SELECT pid, pg_terminate_backend(pid) {LISTENERS}"))
        return {row[0] for row in rows}


async def _new_listener(engine: AsyncEngine, killed: set[int]) -> None:
    """Wait until the hub listens on a new backend (it may get there at once, so no in-between)."""
    for _ in range(300):
        async with engine.connect() as connection:
            pids = {row[0] for row in await connection.execute(text(f"SELECT pid {LISTENERS}"))}
        if pids - killed:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the hub does not listen again")


async def _run_now(owner: Caller) -> uuid.UUID:
    automation = await owner.create_automation()
    response = await owner.request(
        "POST", owner.space_path(f"/automations/{automation['id']}/runs"), json={"inputs": {}}
    )
    assert response.status_code == 202, response.text
    return uuid.UUID(response.json()["id"])


async def _change_of(changes: asyncio.Queue[RunChange], run_id: uuid.UUID) -> RunChange:
    while True:
        change = await asyncio.wait_for(changes.get(), 30)
        if change.run_id == run_id:
            return change


async def _until(predicate: Any) -> None:
    for _ in range(300):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the hub did not get there")


async def test_changes_flow_again_after_the_listening_backend_is_terminated_twice(
    hub: RunEventHub, engine: AsyncEngine, factory: Factory
) -> None:
    owner = await factory.owner()
    async with hub.subscribe(uuid.UUID(owner.space_id)) as changes:
        assert hub.listening
        for _ in range(2):  # and again: the new connection is watched like the first
            killed = await _terminate_listeners(engine)
            assert killed, "the hub's LISTEN backend was found and terminated"
            await _new_listener(engine, killed)
            assert hub.listening

        run_id = await _run_now(owner)
        change = await _change_of(changes, run_id)
    assert change.space_id == uuid.UUID(owner.space_id)
    assert not hub.listening, "the last subscriber leaving stops listening"


async def test_changes_made_while_nobody_listened_are_replayed_after_listening_again(
    hub: RunEventHub, engine: AsyncEngine, factory: Factory
) -> None:
    owner, stranger = await factory.owner(), await factory.owner(space="Elsewhere")
    async with (
        hub.subscribe(uuid.UUID(owner.space_id)) as mine,
        hub.subscribe(uuid.UUID(stranger.space_id)) as theirs,
    ):
        # Holding the hub's lock keeps it from listening again until the run below has committed,
        # so that run's NOTIFY certainly went to nobody.
        async with hub._lock:
            await _terminate_listeners(engine)
            await _until(lambda: not hub.listening)
            run_id = await _run_now(owner)
        change = await _change_of(mine, run_id)
        assert hub.listening
        assert change.status in ("pending", "queued", "running", "succeeded")
        assert all(c.run_id != run_id for c in _drain(theirs)), "replay stays in the run's space"


async def _change_to(changes: asyncio.Queue[RunChange], run_id: uuid.UUID, status: str) -> RunChange:
    while True:
        change = await _change_of(changes, run_id)
        if change.status == status:
            return change


async def _age(engine: AsyncEngine, run_id: uuid.UUID) -> None:
    """Date everything the run has done a minute back, so only what it does next falls in a gap."""
    async with engine.begin() as connection:
        await connection.execute(
            text(
                "UPDATE runs SET created_at = created_at - interval '1 minute',"
                " started_at = started_at - interval '1 minute',"
                " status_changed_at = status_changed_at - interval '1 minute' WHERE id = :id"
            ),
            {"id": run_id},
        )


async def test_moves_without_another_timestamp_made_while_nobody_listened_are_replayed(
    app: Any, hub: RunEventHub, engine: AsyncEngine, factory: Factory
) -> None:
    owner = await factory.owner()
    first_automation = await owner.create_automation(minimal_definition(execution={"concurrency": "queue"}))
    waiting = await claim(app, (await fire(app, first_automation["id"])).id)
    queued_automation = await owner.create_automation(minimal_definition(execution={"concurrency": "queue"}))
    ahead = await claim(app, (await fire(app, queued_automation["id"])).id)
    queued = await fire(app, queued_automation["id"])
    assert queued.status == "queued"
    for run_id in (waiting.id, ahead.id, queued.id):
        await _age(engine, run_id)

    async with hub.subscribe(uuid.UUID(owner.space_id)) as changes:
        async with hub._lock:
            await _terminate_listeners(engine)
            await _until(lambda: not hub.listening)
            # Started a minute ago, waiting for approval now; queued a minute ago, promoted now.
            await finish(app, waiting, suspended())
            await finish(app, ahead, Outcome("succeeded"))
        assert (await _change_to(changes, waiting.id, "awaiting_approval")).space_id == waiting.space_id
        assert (await _change_to(changes, queued.id, "pending")).space_id == queued.space_id


def _drain(queue: asyncio.Queue[RunChange]) -> list[RunChange]:
    drained = []
    while not queue.empty():
        drained.append(queue.get_nowait())
    return drained


async def test_a_hub_without_subscribers_does_not_listen_again(hub: RunEventHub, factory: Factory) -> None:
    owner = await factory.owner()
    async with hub.subscribe(uuid.UUID(owner.space_id)):
        assert hub.listening
    assert not hub.listening
    async with hub.subscribe(uuid.UUID(owner.space_id)) as changes:
        run_id = await _run_now(owner)
        assert (await _change_of(changes, run_id)).run_id == run_id


async def test_a_connection_the_network_cut_silently_is_found_by_the_probe_and_replaced(
    settings: Settings, factory: Factory
) -> None:
    proxy = await SilentProxy.start(settings.resolved_database_url())
    through = create_engine(proxy.url(), pool_size=2)
    hub = RunEventHub(through, probe_seconds=0.2, probe_timeout_seconds=1.0)
    owner = await factory.owner()
    try:
        async with hub.subscribe(uuid.UUID(owner.space_id)) as changes:
            proxy.silence()
            # Its NOTIFY goes down the silent path; only the replay after the probe fails brings it.
            run_id = await _run_now(owner)
            change = await _change_of(changes, run_id)
            assert hub.listening
            assert change.space_id == uuid.UUID(owner.space_id)
    finally:
        await hub.close()
        await through.dispose()
        await proxy.stop()


async def _woken(subscription: Subscription) -> bool:
    """Whether the subscription was asked to re-check its caller (waiting a little for the NOTIFY)."""
    for _ in range(100):
        if subscription.access_changed:
            assert None in _drain(subscription), "the stream is woken, not only flagged"
            return subscription.take_access_changed()
        await asyncio.sleep(0.05)
    return False


async def test_a_revoked_token_or_a_removed_membership_wakes_only_the_streams_it_concerns(
    hub: RunEventHub, factory: Factory
) -> None:
    owner = await factory.owner()
    member = await factory.member(owner)
    made = await owner.request("POST", "/api/v1/tokens", json={"name": "stream"})
    assert made.status_code == 201, made.text
    token_id = uuid.UUID(made.json()["id"])
    space = uuid.UUID(owner.space_id)
    async with (
        hub.subscribe(space, token_id=token_id, user_id=uuid.UUID(owner.user_id)) as owners,
        hub.subscribe(space, token_id=uuid.uuid4(), user_id=uuid.UUID(member.user_id)) as members,
        hub.subscribe(space) as anonymous,
    ):
        revoked = await owner.request("POST", f"/api/v1/tokens/{token_id}/revoke")
        assert revoked.status_code == 200
        assert await _woken(owners)
        assert not members.access_changed

        removed = await owner.request("DELETE", owner.space_path(f"/members/{member.user_id}"))
        assert removed.status_code == 204
        assert await _woken(members)
        assert not owners.access_changed
        assert not anonymous.access_changed
        assert None not in _drain(anonymous)


async def test_listening_again_asks_every_stream_with_a_caller_to_re_check(
    hub: RunEventHub, engine: AsyncEngine, factory: Factory
) -> None:
    owner = await factory.owner()
    space = uuid.UUID(owner.space_id)
    async with (
        hub.subscribe(space, token_id=uuid.uuid4(), user_id=uuid.UUID(owner.user_id)) as stream,
        hub.subscribe(space) as anonymous,
    ):
        # A revocation NOTIFY sent while the connection was down is lost: everyone re-checks.
        killed = await _terminate_listeners(engine)
        await _new_listener(engine, killed)
        assert await _woken(stream)
        assert not anonymous.access_changed


@pytest.mark.parametrize(
    "payload",
    ["", "{", "[]", '{"token_id": "nope"}', '{"space_id": "x"}', '{"user_id": null}', "null"],
)
def test_malformed_access_notifications_are_ignored(payload: str) -> None:
    assert parse_access_change(payload) is None
