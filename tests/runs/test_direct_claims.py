"""Direct claims: a worker task that ran its run goes on with the next pending runs of its message's queue,
claimed straight from the runs table, while their own wake-ups, once stale, go on with whatever is pending.

A backlog of 5,000 one-step runs drains through two workers while one of them is killed with SIGKILL:
every run ends once, none runs twice. A direct claim takes only runs of the queue the message came from,
never a cancelled run, and the stale wake-up of a run claimed directly never runs it again."""

from __future__ import annotations

import asyncio
import os
import signal
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import psutil
import pytest
from httpx import ASGITransport, AsyncClient
from redis.asyncio import Redis
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.main import create_app
from app.persistence.db import create_engine
from app.persistence.models import Run
from app.persistence.transaction import transaction
from app.services.runs.limits import EXECUTE_TASK
from app.worker.celery_app import create_celery
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.processes import ServiceProcess, start_worker
from tests.support.runs import definition
from tests.support.servers import Servers, admin_sql, clone_database

pytestmark = pytest.mark.timeout(600)

LEASE_SECONDS = 5
TICK_SECONDS = 1
BATCH = 8
# About a minute on an idle 2-core machine; a heavily loaded one may set a smaller backlog to check.
BACKLOG = int(os.environ.get("AUTOMATIONS_TEST_DIRECT_CLAIM_BACKLOG", "5000"))
ONE_STEP = definition({"step_id": "only", "action": "transform_data", "config": {"output": 1}})


@dataclass
class Stack:
    settings: Settings
    env: dict[str, str]
    app: Any
    client: AsyncClient
    engine: AsyncEngine
    celery: Any
    started: list[ServiceProcess] = field(default_factory=list)

    async def rows(self, sql: str, **params: Any) -> list[Any]:
        async with self.engine.connect() as connection:
            return list(await connection.execute(text(sql), params))

    async def store(self, owner: Caller, automation: dict[str, Any], count: int, **columns: Any) -> list[str]:
        """`count` pending runs of `automation` written in one transaction, with no wake-up."""
        now = datetime.now(UTC)
        runs = [
            Run(
                id=uuid.uuid4(),
                space_id=uuid.UUID(owner.space_id),
                automation_id=uuid.UUID(automation["id"]),
                automation_version=1,
                definition=automation["definition"],
                status="pending",
                queue=columns.get("queue", "runs.fast"),
                priority=columns.get("priority", 0),
                trigger_type="manual",
                trigger_payload={},
                inputs={},
                # As the fire path writes it: its wake-up is on its way (recovery leaves it alone).
                enqueued_at=now,
            )
            for _ in range(count)
        ]
        async with transaction(self.app.state.sessionmaker, self.app.state.send_job) as session:
            session.add_all(runs)
        return [str(run.id) for run in runs]

    def wake(self, run_ids: list[str], queue: str = "runs.fast") -> None:
        """Each run's wake-up, as the service sends it, over one broker connection."""
        with self.celery.producer_or_acquire() as producer:
            for run_id in run_ids:
                self.celery.send_task(EXECUTE_TASK, args=[run_id], queue=queue, producer=producer)

    async def until_done(self, run_ids: list[str], timeout: float = 240) -> None:
        deadline = time.monotonic() + timeout
        while True:
            (left,) = await self.rows(
                "SELECT count(*) FROM runs WHERE id = ANY(CAST(:ids AS uuid[]))"
                " AND status NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out')",
                ids=run_ids,
            )
            if left[0] == 0:
                return
            assert time.monotonic() < deadline, f"{left[0]} runs unfinished:\n{self.logs()}"
            await asyncio.sleep(0.25)

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.log_tail(2000)}" for p in self.started)


def _worker(
    stack_settings: Settings, env: dict[str, str], name: str, queues: str | None = None
) -> ServiceProcess:
    if queues is None:
        return start_worker(stack_settings, env, name)
    node = f"{name}-{os.getpid()}@localhost"
    process = ServiceProcess.cli(
        name, ["worker", "-c", "1", "-Q", queues, "-n", node], env, stack_settings.home, node
    )
    celery = create_celery(stack_settings)
    deadline = time.monotonic() + 60
    while not celery.control.ping(destination=[node], timeout=0.5):
        assert process.alive(), process.log_tail()
        assert time.monotonic() < deadline, process.log_tail()
    return process


@pytest.fixture(scope="module")
async def stack(
    servers: Servers,
    settings: Settings,
    service_env: dict[str, str],
    tmp_path_factory: pytest.TempPathFactory,
    template_database: str,
) -> AsyncIterator[Stack]:
    """A database and broker prefix of their own, direct claims on; workers are started by each test."""
    name, url = await clone_database(servers.admin_database_url, template_database)
    home = tmp_path_factory.mktemp("direct")
    prefix = f"direct-{uuid.uuid4().hex[:8]}:"
    own = settings.model_copy(
        update={
            "database_url": url,
            "redis_key_prefix": prefix,
            "home": home,
            "run_lease_seconds": LEASE_SECONDS,
            "beat_tick_seconds": TICK_SECONDS,
            "direct_claim_batch": BATCH,
        }
    )
    env = {
        **service_env,
        "DATABASE_URL": url,
        "AUTOMATIONS_HOME": str(home),
        "AUTOMATIONS_REDIS_KEY_PREFIX": prefix,
        "AUTOMATIONS_RUN_LEASE_SECONDS": str(LEASE_SECONDS),
        "AUTOMATIONS_RUN_REQUEUE_AFTER_SECONDS": "30",
        "AUTOMATIONS_BEAT_TICK_SECONDS": str(TICK_SECONDS),
        "AUTOMATIONS_DIRECT_CLAIM_BATCH": str(BATCH),
    }
    app = create_app(own)
    engine = create_engine(url, pool_size=2)
    started: list[ServiceProcess] = []
    try:
        async with (
            app.router.lifespan_context(app),
            AsyncClient(transport=ASGITransport(app=app), base_url="http://testserver") as client,
        ):
            yield Stack(own, env, app, client, engine, create_celery(own), started)
    finally:
        for process in started:
            process.stop(graceful=False)
        await engine.dispose()
        await admin_sql(servers.admin_database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def running(stack: Stack) -> Iterator[list[ServiceProcess]]:
    """The processes a test starts, stopped at its end (the next test starts its own); an earlier
    test's wake-ups left on the broker are dropped first, so a test's messages are the only ones."""
    stack.celery.control.purge()
    mine: list[ServiceProcess] = []
    yield mine
    for process in mine:
        process.stop(graceful=False)


async def _automation(stack: Stack, plan: dict[str, Any] = ONE_STEP) -> tuple[Caller, dict[str, Any]]:
    owner = await Factory(stack.app, stack.client).owner()
    automation = await owner.create_automation(plan)
    await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
    return owner, automation


def _pool_pids(worker: ServiceProcess) -> set[int]:
    return {child.pid for child in psutil.Process(worker.pid).children(recursive=True)}


class TestDirectClaims:
    async def test_a_backlog_drains_once_each_while_a_worker_is_killed(
        self, stack: Stack, running: list[ServiceProcess]
    ) -> None:
        owner, automation = await _automation(stack)
        run_ids = await stack.store(owner, automation, BACKLOG)
        await asyncio.to_thread(stack.wake, run_ids)
        doomed, survivor = await asyncio.gather(
            asyncio.to_thread(_worker, stack.settings, stack.env, "doomed"),
            asyncio.to_thread(_worker, stack.settings, stack.env, "survivor"),
        )
        beat = ServiceProcess.cli("beat", ["beat"], stack.env, stack.settings.home)
        running += [doomed, survivor, beat]
        stack.started += [doomed, survivor, beat]
        pids = _pool_pids(doomed)

        async def held_by_doomed() -> set[str]:
            rows = await stack.rows("SELECT id, claimed_by FROM runs WHERE status = 'running'")
            return {str(r[0]) for r in rows if r[1] and int(r[1].rsplit(":", 1)[1]) in pids}

        # Mid-drain: some runs done, and the doomed worker holding one.
        held: set[str] = set()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            (done,) = await stack.rows("SELECT count(*) FROM runs WHERE status = 'succeeded'")
            held = await held_by_doomed()
            if done[0] >= BACKLOG // 10 and held:
                break
            await asyncio.sleep(0.01)
        assert held, f"the doomed worker never held a run:\n{stack.logs()}"
        os.killpg(doomed.pid, signal.SIGKILL)
        doomed.process.wait()
        held |= await held_by_doomed()

        await stack.until_done(run_ids)
        rows = await stack.rows(
            "SELECT r.id, r.status, r.attempt,"
            " count(s.id) FILTER (WHERE s.status = 'succeeded'), count(s.id)"
            " FROM runs r LEFT JOIN run_steps s ON s.run_id = r.id"
            " WHERE r.automation_id = :a GROUP BY r.id",
            a=automation["id"],
        )
        assert len(rows) == BACKLOG
        assert {row[1] for row in rows} == {"succeeded"}, "none lost"
        assert all(row[3] == 1 for row in rows), "every run's step succeeded exactly once"
        again = {str(row[0]) for row in rows if row[2] > 1 or row[4] > 1}
        assert again <= held, "only a run the killed worker held was claimed again"
        logs = stack.logs()
        assert "claimed directly" in survivor.log_tail(200_000), logs
        assert "not_claimed" in survivor.log_tail(200_000), (
            "the wake-ups of runs claimed directly did nothing"
        )

    async def test_a_direct_claim_takes_only_its_queue_and_no_cancelled_run(
        self, stack: Stack, running: list[ServiceProcess]
    ) -> None:
        owner, automation = await _automation(stack)
        # Older and more urgent than the fast runs, on a queue the worker does not consume.
        medium = await stack.store(owner, automation, 3, queue="runs.medium", priority=9)
        cancelled = (await stack.store(owner, automation, 1, priority=9))[0]
        answer = await owner.request("POST", owner.space_path(f"/runs/{cancelled}/cancel"))
        assert answer.status_code in (200, 202), answer.text
        fast = await stack.store(owner, automation, 5)
        worker = await asyncio.to_thread(_worker, stack.settings, stack.env, "fast-only", "runs.fast")
        running.append(worker)
        stack.started.append(worker)
        # One wake-up for five runs: the other four can only be claimed directly.
        await asyncio.to_thread(stack.wake, fast[:1])
        await stack.until_done(fast, timeout=60)

        rows = {
            str(r[0]): (r[1], r[2])
            for r in await stack.rows(
                "SELECT id, status, attempt FROM runs WHERE id = ANY(CAST(:ids AS uuid[]))",
                ids=[*medium, cancelled, *fast],
            )
        }
        assert all(rows[run_id] == ("succeeded", 1) for run_id in fast), rows
        assert all(rows[run_id] == ("pending", 0) for run_id in medium), "another queue's runs stay"
        assert rows[cancelled] == ("cancelled", 0), "a cancelled run is never claimed"
        (steps,) = await stack.rows(
            "SELECT count(*) FROM run_steps WHERE run_id = CAST(:r AS uuid)", r=cancelled
        )
        assert steps[0] == 0

    async def test_the_wake_up_of_a_run_claimed_directly_does_nothing(
        self, stack: Stack, running: list[ServiceProcess]
    ) -> None:
        owner, automation = await _automation(stack)
        first, taken = await stack.store(owner, automation, 2)
        worker = await asyncio.to_thread(_worker, stack.settings, stack.env, "stale", "runs.fast")
        running.append(worker)
        stack.started.append(worker)
        await asyncio.to_thread(stack.wake, [first])
        await stack.until_done([first, taken], timeout=60)
        # A run that is still pending and has no wake-up of its own: the stale wake-up takes it.
        (bystander,) = await stack.store(owner, automation, 1)
        result = await asyncio.to_thread(
            stack.celery.send_task, EXECUTE_TASK, args=[taken], queue="runs.fast", ignore_result=False
        )
        answer = await asyncio.to_thread(result.get, timeout=60)
        assert answer == "not_claimed (+1 claimed directly)"
        rows = {
            str(r[0]): (r[1], r[2], r[3])
            for r in await stack.rows(
                "SELECT r.id, r.status, r.attempt, count(s.id) FROM runs r"
                " LEFT JOIN run_steps s ON s.run_id = r.id"
                " WHERE r.id = ANY(CAST(:ids AS uuid[])) GROUP BY r.id",
                ids=[taken, bystander],
            )
        }
        assert rows[taken] == ("succeeded", 1, 1), "claimed and run once, by the first task"
        assert rows[bystander] == ("succeeded", 1, 1), "a stale wake-up goes on with the next pending run"


class TestCoalescedWakeUps:
    async def test_fires_behind_a_waiting_wake_up_send_none_and_every_pool_process_drains(
        self, stack: Stack, running: list[ServiceProcess], loopback: Loopback
    ) -> None:
        # Each run holds its claim a tenth of a second, so the claims of both pool processes are seen
        # however late the polling below starts (runs that end at once can all be over before it does).
        slow = {"method": "GET", "url": f"{loopback.url}/slow/drain?seconds=0.1"}
        owner, automation = await _automation(
            stack, definition({"step_id": "only", "action": "http_request", "config": slow})
        )
        count = 60
        run_ids = []
        for _ in range(count):
            answer = await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/runs"))
            assert answer.status_code == 202, answer.text
            run_ids.append(answer.json()["id"])
        broker = Redis.from_url(stack.settings.resolved_redis_url())
        try:
            assert await broker.llen(stack.settings.redis_key_prefix + "runs.fast") == 1, (
                "the first fire's wake-up waited, so the others sent none"
            )
        finally:
            await broker.aclose()

        worker = await asyncio.to_thread(start_worker, stack.settings, stack.env, "coalesced")
        running.append(worker)
        stack.started.append(worker)
        claimers: set[str] = set()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            rows = await stack.rows(
                "SELECT claimed_by, status FROM runs WHERE id = ANY(CAST(:ids AS uuid[]))", ids=run_ids
            )
            claimers |= {row[0] for row in rows if row[0]}
            if all(row[1] == "succeeded" for row in rows):
                break
            await asyncio.sleep(0.005)
        await stack.until_done(run_ids, timeout=5)
        assert len(claimers) == 2, f"both pool processes drained the queue: {claimers}\n{stack.logs()}"
        rows = await stack.rows(
            "SELECT r.status, r.attempt, count(s.id) FROM runs r JOIN run_steps s ON s.run_id = r.id"
            " WHERE r.id = ANY(CAST(:ids AS uuid[])) GROUP BY r.id",
            ids=run_ids,
        )
        assert len(rows) == count
        assert set(rows) == {("succeeded", 1, 1)}, "each ran once"
