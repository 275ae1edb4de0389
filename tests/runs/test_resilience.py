"""Crashes and lost messages lose nothing: kill -9 a worker mid-step, flush the broker, cap and promote."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import datetime

import psutil
import pytest
from httpx import ASGITransport, AsyncClient

from app.config import Settings
from app.main import create_app
from app.worker.celery_app import RUN_QUEUES, create_celery
from tests.support.factories import Factory
from tests.support.loopback import Loopback
from tests.support.processes import start_worker, worker_down
from tests.support.runs import attempts, definition, fire, http_step, start, wait_for
from tests.support.servers import (
    Servers,
    admin_sql,
    clone_database,
    flush_prefix,
    queued_task_ids,
    redis_with_db,
)


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


class TestCrashes:
    async def test_worker_killed_mid_step_resumes_elsewhere_without_repeating_done_steps(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        worker, _beat = stack
        owner = await factory.owner()
        first, slow, last = _name("first"), _name("slow"), _name("last")
        _, run = await start(
            owner,
            definition(
                http_step("first", f"{loopback.url}/count/{first}"),
                http_step("slow", f"{loopback.url}/slow/{slow}?seconds=3"),
                http_step("last", f"{loopback.url}/count/{last}"),
            ),
        )
        for _ in range(100):  # until the slow step's request has arrived
            if loopback.hits[slow]:
                break
            await asyncio.sleep(0.1)
        assert loopback.hits[slow] == 1
        children = psutil.Process(worker.process.pid).children(recursive=True)
        for child in children:
            child.kill()  # SIGKILL: no cleanup, no acknowledgement logic runs in the child
        done = await wait_for(owner, run["id"], timeout=60)
        assert done["status"] == "succeeded", done
        assert loopback.hits[first] == 1, "a succeeded step is never executed again"
        assert loopback.hits[last] == 1
        assert loopback.hits[slow] == 2, "the interrupted step ran again (at least once)"
        assert done["attempt"] >= 2
        interrupted, finished = attempts(done, "slow")
        assert interrupted["error"]["code"] == "interrupted"
        assert finished["status"] == "succeeded"

    async def test_pending_runs_survive_a_flushed_broker(
        self, factory: Factory, loopback: Loopback, stack, settings: Settings
    ) -> None:  # type: ignore[no-untyped-def]
        worker, _beat = stack
        owner = await factory.owner()
        name = _name("flushed")
        with worker_down(worker, settings):
            automation_id, first = await start(
                owner, definition(http_step("call", f"{loopback.url}/count/{name}"))
            )
            others = [await fire(owner, automation_id) for _ in range(2)]
            assert (
                flush_prefix(settings.resolved_redis_url(), settings.redis_key_prefix) > 0
            )  # every wake-up is gone
        for run in (first, *others):
            assert (await wait_for(owner, run["id"], timeout=60))["status"] == "succeeded"
        assert loopback.hits[name] == 3

    async def test_cancelled_pending_run_is_not_executed_when_its_message_arrives(
        self, factory: Factory, loopback: Loopback, stack, settings: Settings
    ) -> None:  # type: ignore[no-untyped-def]
        worker, _beat = stack
        owner = await factory.owner()
        name = _name("cancel-pending")
        celery = create_celery(settings)
        # The worker stops taking run messages, so the wake-up waits in Redis where the test can see it.
        for queue in RUN_QUEUES:
            celery.control.cancel_consumer(queue, destination=[worker.node], reply=True)
        try:
            _, run = await start(owner, definition(http_step("call", f"{loopback.url}/count/{name}")))
            response = await owner.request("POST", owner.space_path(f"/runs/{run['id']}/cancel"))
            assert response.json()["status"] == "cancelled"
            waiting = queued_task_ids(settings.resolved_redis_url(), settings.redis_key_prefix, run["queue"])
            task_id = waiting[run["id"]]
        finally:
            for queue in RUN_QUEUES:
                celery.control.add_consumer(queue, destination=[worker.node], reply=True)
            celery.close()
        # The positive signal: the worker took this very message and its claim found nothing to run.
        answer = f"runs.execute[{task_id}] succeeded"
        lines: list[str] = []
        for _ in range(300):
            lines = [line for line in worker.log_lines() if answer in line]
            if lines:
                break
            await asyncio.sleep(0.1)
        assert lines, f"the wake-up {task_id} was never processed:\n{worker.log_tail()}"
        assert lines[0].endswith("'not_claimed'")
        assert loopback.hits[name] == 0
        assert (await wait_for(owner, run["id"]))["status"] == "cancelled"


@pytest.fixture
async def capped(
    servers: Servers, settings: Settings, template_database: str
) -> AsyncIterator[tuple[AsyncClient, object]]:
    """A stack of its own (database, Redis database, worker, API) with AUTOMATIONS_MAX_CONCURRENT_RUNS=2."""
    name, url = await clone_database(servers.admin_database_url, template_database)
    redis_url = redis_with_db(servers.redis_url, 13)
    prefix = f"capped-{uuid.uuid4().hex[:8]}:"
    capped_settings = settings.model_copy(
        update={
            "database_url": url,
            "redis_url": redis_url,
            "max_concurrent_runs": 2,
            "redis_key_prefix": prefix,
        }
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "DATABASE_URL": url,
        "REDIS_URL": redis_url,
        "AUTOMATIONS_ENVIRONMENT": "test",
        "AUTOMATIONS_SECRET_KEY": settings.resolved_secret_key(),
        "AUTOMATIONS_HOME": str(settings.home),
        "AUTOMATIONS_EGRESS_ALLOW": settings.egress_allow,
        "AUTOMATIONS_MAX_CONCURRENT_RUNS": "2",
        "AUTOMATIONS_REDIS_KEY_PREFIX": prefix,
    }
    worker = await asyncio.to_thread(start_worker, capped_settings, env, "capped")
    app = create_app(capped_settings)
    try:
        async with (
            app.router.lifespan_context(app),
            AsyncClient(transport=ASGITransport(app=app), base_url="http://testserver") as client,
        ):
            yield client, app
    finally:
        worker.stop(graceful=False)
        await admin_sql(servers.admin_database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class TestGlobalCap:
    async def test_cap_queues_and_promotes_oldest_first(self, capped, loopback: Loopback) -> None:  # type: ignore[no-untyped-def]
        client, app = capped
        owner = await Factory(app, client).owner()  # type: ignore[arg-type]
        name = _name("capped")
        automation_id, first = await start(
            owner, definition(http_step("slow", f"{loopback.url}/slow/{name}?seconds=1.5"))
        )
        rest = [await fire(owner, automation_id) for _ in range(4)]
        assert first["status"] == "pending"
        assert [r["status"] for r in rest] == ["pending", "queued", "queued", "queued"]
        assert {r["reason"] for r in rest[1:]} == {"global_concurrency_cap"}
        queue = (await owner.request("GET", owner.space_path("/queue"))).json()["items"]
        assert [r["id"] for r in queue] == [r["id"] for r in rest[1:]]
        runs = [await wait_for(owner, r["id"], timeout=60) for r in (first, *rest)]
        assert [r["status"] for r in runs] == ["succeeded"] * 5
        # Two runs promoted together may start in either order on two worker processes: the order of
        # promotion is what the queue keeps.
        promoted = [datetime.fromisoformat(r["promoted_at"]) for r in runs[2:]]
        assert promoted[0] <= promoted[1] <= promoted[2], "promoted oldest first"
        spans = [
            (datetime.fromisoformat(r["started_at"]), datetime.fromisoformat(r["finished_at"])) for r in runs
        ]
        for start_at, _ in spans:
            running = sum(1 for s, f in spans if s <= start_at < f)
            assert running <= 2, "never more than the cap at once"
