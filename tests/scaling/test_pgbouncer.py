"""Behind a real PgBouncer in transaction mode (AUTOMATIONS_DATABASE_POOLER=transaction): fires, runs on a
real worker, an approval, the live run stream and a schedule tick all work, the worker and beat reaching
PostgreSQL only through the pooler; without the setting, asyncpg's prepared statements break there."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from httpx import ASGITransport, AsyncClient
from sqlalchemy import select, text, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.devstack import free_port
from app.main import create_app
from app.persistence.autocommit import AutocommitWrites
from app.persistence.db import create_engine
from app.persistence.models import AutomationTrigger
from tests.governed.helpers import waiting_run
from tests.support.approvals import decide, the_approval
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.pgbouncer import PgBouncer, find_pgbouncer
from tests.support.processes import ServiceProcess, start_worker
from tests.support.runs import definition, http_step, start, wait_for
from tests.support.servers import Servers, admin_sql, clone_database

pytestmark = pytest.mark.timeout(180)

LISTEN_APP = "automations-api-listen"


@pytest.fixture(scope="module")
def bouncer(servers: Servers) -> Iterator[PgBouncer]:
    binary = find_pgbouncer()
    if binary is None:
        pytest.skip("pgbouncer is not installed (Debian package `pgbouncer`: `make pgbouncer` installs it)")
    # Two server connections for every client of the stack: transactions of one client land on either.
    process = PgBouncer(binary, servers.admin_database_url, pool_size=2)
    yield process
    process.stop()


@dataclass
class PooledStack:
    app: Any
    client: AsyncClient
    settings: Settings
    direct_url: str
    worker: ServiceProcess


@pytest.fixture(scope="module")
async def pooled(
    bouncer: PgBouncer,
    servers: Servers,
    settings: Settings,
    service_env: dict[str, str],
    tmp_path_factory: pytest.TempPathFactory,
    template_database: str,
) -> AsyncIterator[PooledStack]:
    """A database of its own, an api (in process), a worker and beat, all on DATABASE_URL through PgBouncer.

    The worker's and beat's direct URL names a port nobody listens on: whatever they do, they do through
    the pooler. The api listens for run changes on its direct URL, the real server.
    """
    name, direct_url = await clone_database(servers.admin_database_url, template_database)
    home = tmp_path_factory.mktemp("pooled-home")
    pooled_settings = settings.model_copy(
        update={
            "database_url": bouncer.url(name),
            "database_direct_url": direct_url,
            "database_pooler": "transaction",
            "redis_key_prefix": f"pooled-{uuid.uuid4().hex[:8]}:",
            "home": home,
        }
    )
    env = {
        **service_env,
        "DATABASE_URL": bouncer.url(name),
        "AUTOMATIONS_DATABASE_POOLER": "transaction",
        "AUTOMATIONS_DATABASE_DIRECT_URL": f"postgresql://postgres@127.0.0.1:{free_port()}/{name}",
        "AUTOMATIONS_REDIS_KEY_PREFIX": pooled_settings.redis_key_prefix,
        "AUTOMATIONS_HOME": str(home),
    }
    worker = await asyncio.to_thread(start_worker, pooled_settings, env, "pooled")
    beat = ServiceProcess.cli("pooled-beat", ["beat"], env, Path(home))
    app = create_app(pooled_settings)
    try:
        async with (
            app.router.lifespan_context(app),
            AsyncClient(transport=ASGITransport(app=app), base_url="http://testserver") as client,
        ):
            yield PooledStack(app, client, pooled_settings, direct_url, worker)
    finally:
        beat.stop(graceful=False)
        worker.stop(graceful=False)
        await admin_sql(servers.admin_database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def _owner(stack: PooledStack) -> Caller:
    return await Factory(stack.app, stack.client).owner()


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


class TestBehindPgBouncer:
    async def test_fires_run_to_completion_on_a_worker_that_reaches_the_database_through_the_pooler(
        self, pooled: PooledStack, loopback: Loopback
    ) -> None:
        owner = await _owner(pooled)
        hits = _name("pooled")
        automation_id, first = await start(
            owner, definition(http_step("call", f"{loopback.url}/count/{hits}"))
        )
        # Concurrent fires share the pooler's two server connections with the worker's claims.
        answers = await asyncio.gather(
            *[
                owner.request("POST", owner.space_path(f"/automations/{automation_id}/runs"), json={})
                for _ in range(8)
            ]
        )
        assert [a.status_code for a in answers] == [202] * 8, [a.text for a in answers]
        runs = [first, *(a.json() for a in answers)]
        done = [await wait_for(owner, run["id"], timeout=90) for run in runs]
        assert [run["status"] for run in done] == ["succeeded"] * 9, done
        assert loopback.hits[hits] == 9
        assert pooled.worker.alive(), pooled.worker.log_tail()
        assert "prepared statement" not in pooled.worker.log_tail(100_000)

    async def test_webhook_fires_write_through_the_pooler(self, pooled: PooledStack) -> None:
        owner = await _owner(pooled)
        document = definition(
            {
                "step_id": "echo",
                "action": "transform_data",
                "config": {"output": "{{ trigger.n }}"},
                "output_as": "echo",
            },
            triggers=[{"type": "webhook", "config": {}}],
        )
        created = await owner.create_automation(document)
        await owner.request("POST", owner.space_path(f"/automations/{created['id']}/activate"))
        token = created["triggers"][0]["token"]
        answers = await asyncio.gather(
            *[
                pooled.client.post(
                    f"/api/v1/automations/{created['id']}/fire",
                    json={"n": n},
                    headers={"Authorization": f"Bearer {token}"},
                )
                for n in range(6)
            ]
        )
        assert [a.status_code for a in answers] == [202] * 6, [a.text for a in answers]
        outputs = {(await wait_for(owner, a.json()["run_id"], timeout=90))["output"]["echo"] for a in answers}
        assert outputs == {0, 1, 2, 3, 4, 5}

    async def test_an_approval_round_trip(self, pooled: PooledStack, loopback: Loopback) -> None:
        owner = await _owner(pooled)
        hits = _name("approved")
        _, run = await waiting_run(owner, loopback, hits)
        assert loopback.hits[hits] == 0
        approval = await the_approval(owner, run["id"])
        response = await decide(owner, approval["id"], "approve")
        assert response.status_code == 200, response.text
        assert (await wait_for(owner, run["id"], timeout=90))["status"] == "succeeded"
        assert loopback.hits[hits] == 1

    async def test_the_live_run_stream_listens_on_the_direct_connection(self, pooled: PooledStack) -> None:
        owner = await _owner(pooled)
        hub = pooled.app.state.run_events
        async with hub.subscribe(uuid.UUID(owner.space_id)) as subscription:
            assert hub.listening
            direct = create_engine(pooled.direct_url, pool_size=1)
            try:
                async with direct.connect() as connection:
                    listeners = await connection.scalar(
                        text(
                            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                            " AND query ILIKE 'LISTEN%run_changes%' AND application_name = :app"
                        ),
                        {"app": LISTEN_APP},
                    )
            finally:
                await direct.dispose()
            assert listeners == 1, "the api listens on one connection straight to PostgreSQL"
            _, run = await start(
                owner,
                definition({"step_id": "a", "action": "transform_data", "config": {"output": 1}}),
            )
            seen: set[str] = set()
            while "succeeded" not in seen:
                change = await asyncio.wait_for(subscription.get(), 60)
                if change is not None and str(change.run_id) == run["id"]:
                    seen.add(change.status)
        assert "running" in seen or "pending" in seen, seen

    async def test_beat_fires_a_due_schedule_through_the_pooler(self, pooled: PooledStack) -> None:
        owner = await _owner(pooled)
        document = definition(
            {"step_id": "a", "action": "transform_data", "config": {"output": "{{ trigger.scheduled_for }}"}},
            triggers=[{"type": "schedule", "config": {"cron": "0 9 * * *", "timezone": "UTC"}}],
        )
        created = await owner.create_automation(document)
        await owner.request("POST", owner.space_path(f"/automations/{created['id']}/activate"))
        due = datetime.now(UTC) - timedelta(seconds=1)
        async with pooled.app.state.sessionmaker() as session:
            await session.execute(
                update(AutomationTrigger)
                .where(AutomationTrigger.automation_id == created["id"])
                .values(next_fire_at=due)
            )
            await session.commit()
        runs: list[dict[str, Any]] = []
        for _ in range(300):
            listing = await owner.request(
                "GET", owner.space_path("/runs"), params={"automation_id": created["id"]}
            )
            runs = listing.json()["items"]
            if runs:
                break
            await asyncio.sleep(0.2)
        assert len(runs) == 1, "beat's tick fired the due slot once"
        done = await wait_for(owner, runs[0]["id"], timeout=90)
        assert (done["status"], done["trigger_type"]) == ("succeeded", "schedule")
        async with pooled.app.state.sessionmaker() as session:
            trigger = (
                await session.scalars(
                    select(AutomationTrigger).where(AutomationTrigger.automation_id == created["id"])
                )
            ).one()
        assert trigger.next_fire_at is not None
        assert trigger.next_fire_at > datetime.now(UTC), "the slot moved on"


async def _concurrent_writes(engine: AsyncEngine) -> None:
    async def writes() -> None:
        async with AutocommitWrites.open(engine) as held:
            for n in range(40):
                async with held.write() as session:
                    assert await session.scalar(text("SELECT CAST(:n AS int) + 1"), {"n": n}) == n + 1

    await asyncio.gather(*[writes() for _ in range(8)])


async def _statement_while_its_server_is_taken(engine: AsyncEngine) -> None:
    """A client's statement, then the same again while another client's transaction holds the server
    connection it ran on: PgBouncer hands out its most recently used server connection first, so the
    transaction takes that one and the second run of the statement lands on one that never saw it."""
    statement = text("SELECT CAST(:n AS int) + 1")
    async with engine.connect() as first, engine.connect() as second:
        await first.execution_options(isolation_level="AUTOCOMMIT")
        assert await first.scalar(statement, {"n": 1}) == 2
        async with second.begin():
            await second.execute(text("SELECT 1"))
            assert await first.scalar(statement, {"n": 2}) == 3


class TestWithoutTheSetting:
    async def test_prepared_statements_break_behind_the_pooler_and_the_setting_avoids_them(
        self, bouncer: PgBouncer
    ) -> None:
        url = bouncer.url("postgres")
        plain = create_engine(url, pool_size=8)
        try:
            with pytest.raises(DBAPIError, match="prepared statement"):
                await _statement_while_its_server_is_taken(plain)
        finally:
            await plain.dispose()
        pooled = create_engine(url, pool_size=8, transaction_pooler=True)
        try:
            await _statement_while_its_server_is_taken(pooled)
            await _concurrent_writes(pooled)
        finally:
            await pooled.dispose()
