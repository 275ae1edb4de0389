"""Losing a whole node: two nodes (an api process and a worker each, homes and process groups of their
own) share one PostgreSQL and one Redis under a steady load of webhook fires; every process of one node
is killed with SIGKILL mid-load. Every accepted fire is exactly one run, every run finishes on the
surviving node once the dead node's leases expire, and no step that had succeeded runs again. Then a
worker asked to stop (SIGTERM, what Kubernetes sends) takes no new work, finishes the run it holds
and exits; a worker started later runs what arrived meanwhile."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from httpx import ASGITransport, AsyncClient
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.devstack import free_port
from app.main import create_app
from app.persistence.db import create_engine
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.processes import ServiceProcess, start_worker
from tests.support.runs import definition, http_step, wait_for
from tests.support.servers import Servers, admin_sql, clone_database

pytestmark = pytest.mark.timeout(240)

LEASE_SECONDS = 3
TICK_SECONDS = 1
SLOW_SECONDS = 1.0
FIRE_EVERY_SECONDS = 0.25
API_START_SECONDS = 60


@dataclass
class Node:
    name: str
    api: ServiceProcess
    worker: ServiceProcess
    url: str

    def pool_pids(self) -> set[int]:
        return {child.pid for child in psutil.Process(self.worker.pid).children(recursive=True)}

    def kill(self) -> None:
        """SIGKILL to every process of the node, as when its machine goes away."""
        for process in (self.api, self.worker):
            os.killpg(process.pid, signal.SIGKILL)
            process.process.wait()


@dataclass
class Cluster:
    settings: Settings
    env: dict[str, str]
    app: Any
    client: AsyncClient
    engine: AsyncEngine
    survivor: Node
    doomed: Node
    started: list[ServiceProcess] = field(default_factory=list)


def _wait_for_api(process: ServiceProcess, url: str) -> None:
    deadline = time.monotonic() + API_START_SECONDS
    while time.monotonic() < deadline:
        if not process.alive():
            raise RuntimeError(f"{process.name} exited early:\n{process.log_tail()}")
        try:
            if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{process.name} did not get ready:\n{process.log_tail()}")


def _node(name: str, settings: Settings, env: dict[str, str], root: Path) -> Node:
    home = root / name
    home.mkdir()
    node_env = {**env, "AUTOMATIONS_HOME": str(home)}
    port = free_port()
    api = ServiceProcess.cli(f"{name}-api", ["api", "--port", str(port), "--workers", "1"], node_env, home)
    worker = start_worker(settings.model_copy(update={"home": home}), node_env, f"{name}-worker")
    url = f"http://127.0.0.1:{port}"
    _wait_for_api(api, url)
    return Node(name, api, worker, url)


@pytest.fixture(scope="module")
async def cluster(
    servers: Servers,
    settings: Settings,
    service_env: dict[str, str],
    tmp_path_factory: pytest.TempPathFactory,
    template_database: str,
) -> AsyncIterator[Cluster]:
    """A database and broker prefix of their own; two nodes and one beat (with the survivor) on them."""
    name, url = await clone_database(servers.admin_database_url, template_database)
    root = tmp_path_factory.mktemp("nodes")
    prefix = f"nodes-{uuid.uuid4().hex[:8]}:"
    own = settings.model_copy(
        update={
            "database_url": url,
            "redis_key_prefix": prefix,
            "home": root,
            "run_lease_seconds": LEASE_SECONDS,
            "beat_tick_seconds": TICK_SECONDS,
        }
    )
    env = {
        **service_env,
        "DATABASE_URL": url,
        "AUTOMATIONS_REDIS_KEY_PREFIX": prefix,
        "AUTOMATIONS_RUN_LEASE_SECONDS": str(LEASE_SECONDS),
        "AUTOMATIONS_RUN_REQUEUE_AFTER_SECONDS": str(LEASE_SECONDS),
        "AUTOMATIONS_BEAT_TICK_SECONDS": str(TICK_SECONDS),
        "AUTOMATIONS_API_WORKERS": "1",
    }
    started: list[ServiceProcess] = []
    app = create_app(own)
    engine = create_engine(url, pool_size=2)
    try:
        nodes = await asyncio.gather(
            asyncio.to_thread(_node, "node-a", own, env, root),
            asyncio.to_thread(_node, "node-b", own, env, root),
        )
        for node in nodes:
            started += [node.api, node.worker]
        beat = ServiceProcess.cli("beat", ["beat"], {**env, "AUTOMATIONS_HOME": str(root / "node-b")}, root)
        started.append(beat)
        async with (
            app.router.lifespan_context(app),
            AsyncClient(transport=ASGITransport(app=app), base_url="http://testserver") as client,
        ):
            yield Cluster(own, env, app, client, engine, survivor=nodes[1], doomed=nodes[0], started=started)
    finally:
        for process in started:
            process.stop(graceful=False)
        await engine.dispose()
        await admin_sql(servers.admin_database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _counted(loopback: Loopback, kind: str, step: str) -> dict[str, Any]:
    # `{{ run.id }}` in the path: the loopback counts each step of each run apart.
    return http_step(
        step, f"{loopback.url}/{kind}/{step}-{{{{ run.id }}}}" + ("?seconds=1" if kind == "slow" else "")
    )


async def _webhook_automation(owner: Caller, loopback: Loopback) -> tuple[str, str]:
    document = definition(
        _counted(loopback, "count", "first"),
        _counted(loopback, "slow", "slow"),
        _counted(loopback, "count", "last"),
        triggers=[{"type": "webhook", "config": {}}],
    )
    created = await owner.create_automation(document)
    await owner.request("POST", owner.space_path(f"/automations/{created['id']}/activate"))
    return created["id"], created["triggers"][0]["token"]


@dataclass
class Load:
    """Fires at both apis in turn until stopped; remembers what each one answered."""

    urls: list[str]
    path: str
    token: str
    accepted: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    stopped: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        async with httpx.AsyncClient(timeout=10) as http:
            turn = 0
            while not self.stopped.is_set():
                url = self.urls[turn % len(self.urls)]
                turn += 1
                try:
                    answer = await http.post(f"{url}{self.path}", json={}, headers=headers)
                except httpx.HTTPError as error:
                    self.refused.append(f"{url}: {type(error).__name__}")
                else:
                    if answer.is_success:
                        self.accepted.append(answer.json()["run_id"])
                    else:
                        self.refused.append(f"{url}: {answer.status_code}")
                await asyncio.sleep(FIRE_EVERY_SECONDS)


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def _released(engine: AsyncEngine, held: set[str], pids: set[int], since: datetime) -> dict[str, float]:
    """Seconds from `since` until each of the `held` runs was no longer leased by the dead processes."""
    released: dict[str, float] = {}
    deadline = time.monotonic() + 60
    while len(released) < len(held) and time.monotonic() < deadline:
        still = await _held_by(engine, pids)
        for run_id in held - still - set(released):
            released[run_id] = (datetime.now(UTC) - since).total_seconds()
        await asyncio.sleep(0.05)
    return released


async def _rows(engine: AsyncEngine, sql: str, **params: Any) -> list[Any]:
    async with engine.connect() as connection:
        return list(await connection.execute(text(sql), params))


async def _held_by(engine: AsyncEngine, pids: set[int]) -> set[str]:
    """The runs a worker whose pool processes are `pids` holds a lease on now."""
    rows = await _rows(engine, "SELECT id, claimed_by FROM runs WHERE status = 'running'")
    return {str(run_id) for run_id, claimed_by in rows if int(claimed_by.rsplit(":", 1)[1]) in pids}


class TestWholeNodeFailure:
    async def test_killing_a_node_mid_load_loses_no_fire_and_repeats_no_succeeded_step(
        self,
        cluster: Cluster,
        loopback: Loopback,
        record_property: Any,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        owner = await Factory(cluster.app, cluster.client).owner()
        automation_id, token = await _webhook_automation(owner, loopback)
        doomed, survivor = cluster.doomed, cluster.survivor
        load = Load([doomed.url, survivor.url], f"/api/v1/automations/{automation_id}/fire", token)
        firing = asyncio.create_task(load.run())
        try:
            # Mid-load, with the doomed node's worker inside a run's slow step (one second long).
            pids = doomed.pool_pids()
            held: set[str] = set()
            for _ in range(300):
                held = {
                    run_id
                    for run_id in await _held_by(cluster.engine, pids)
                    if loopback.hits[f"slow-{run_id}"] and not loopback.hits[f"last-{run_id}"]
                }
                if held and len(load.accepted) >= 6:
                    break
                await asyncio.sleep(0.02)
            assert held, f"the doomed node never took a run:\n{doomed.worker.log_tail()}"
            doomed.kill()
            killed_at = datetime.now(UTC)
            # What the dead node held and what had succeeded: nothing changes either until the leases expire.
            held = await _held_by(cluster.engine, pids)
            assert held, "the node died holding a run"
            done_before = {
                (str(run_id), step_id)
                for run_id, step_id in await _rows(
                    cluster.engine, "SELECT run_id, step_id FROM run_steps WHERE status = 'succeeded'"
                )
            }
            for _ in range(100):  # SIGKILL takes effect at once, but the exit is noticed a little later
                if not any(_running(pid) for pid in pids):
                    break
                await asyncio.sleep(0.05)
            assert not any(_running(pid) for pid in pids), "every process of the node is gone"
            # The load goes on against both addresses while beat's tick finds the expired leases.
            released = await _released(cluster.engine, held, pids, killed_at)
        finally:
            load.stopped.set()
            await firing

        assert len(load.accepted) == len(set(load.accepted)), "one run per accepted fire"
        assert any(doomed.url in refusal for refusal in load.refused), "fires at the dead node were refused"
        runs = {
            str(r[0])
            for r in await _rows(
                cluster.engine, "SELECT id FROM runs WHERE automation_id = :a", a=automation_id
            )
        }
        assert set(load.accepted) <= runs, "every accepted fire is a run"
        # Runs of fires whose answer the kill cut off may exist too; all of them finish.
        finished = {run_id: await wait_for(owner, run_id, timeout=120) for run_id in sorted(runs)}
        assert {run["status"] for run in finished.values()} == {"succeeded"}, finished

        for run_id, run in finished.items():
            for step in ("first", "slow", "last"):
                tries = [s for s in run["steps"] if s["step_id"] == step]
                assert [s["status"] for s in tries][-1:] == ["succeeded"], (run_id, tries)
                assert all(s["status"] != "succeeded" for s in tries[:-1]), "nothing runs after a success"
                assert loopback.hits[f"{step}-{run_id}"] <= len(tries), "every call is a recorded attempt"
                if (run_id, step) in done_before:
                    assert loopback.hits[f"{step}-{run_id}"] == 1, (
                        f"{step} of {run_id} succeeded once, ran once"
                    )
        # The doomed node's runs finished after the kill, every process of that node dead: on the survivor.
        assert set(released) == held, "beat's tick released every lease of the dead node"
        resumed = []
        for run_id in held:
            run = finished[run_id]
            assert run["attempt"] >= 2, run
            starts = [datetime.fromisoformat(step["started_at"]) for step in run["steps"]]
            resumed.append((min(at for at in starts if at > killed_at) - killed_at).total_seconds())
        figure = (
            f"node lost: {len(load.accepted)} fires accepted, {len(runs)} runs, {len(held)} held by the "
            f"dead node; leases released {max(released.values()):.1f} s after the kill (logical bound: lease "
            f"{LEASE_SECONDS} s + one tick {TICK_SECONDS} s + the wait for a free pool process of the "
            f"survivor's worker, which also serves the system queue), resumed on the survivor after "
            f"{max(resumed):.1f} s (behind the runs queued before it)"
        )
        record_property("node_loss_release_seconds", round(max(released.values()), 2))
        record_property("node_loss_resume_seconds", round(max(resumed), 2))
        with capsys.disabled():
            sys.stdout.write(f"\n{figure}\n")

    async def test_sigterm_stops_taking_work_finishes_the_run_it_holds_and_exits(
        self, cluster: Cluster, loopback: Loopback
    ) -> None:
        owner = await Factory(cluster.app, cluster.client).owner()
        automation_id, token = await _webhook_automation(owner, loopback)
        survivor = cluster.survivor
        fire_url = f"{survivor.url}/api/v1/automations/{automation_id}/fire"
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(timeout=10) as http:
            held = (await http.post(fire_url, json={}, headers=headers)).json()["run_id"]
            for _ in range(200):  # until its slow step has started
                if loopback.hits[f"slow-{held}"]:
                    break
                await asyncio.sleep(0.05)
            assert loopback.hits[f"slow-{held}"] == 1
            survivor.worker.process.send_signal(signal.SIGTERM)
            for _ in range(200):  # the warm shutdown has begun: consumers are cancelled
                if any("warm shutdown" in line.lower() for line in survivor.worker.log_lines()):
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError(f"no warm shutdown:\n{survivor.worker.log_tail()}")
            later = (await http.post(fire_url, json={}, headers=headers)).json()["run_id"]
        # The worker exits by itself once the run it holds is done (the wait is a bound, not a figure).
        await asyncio.to_thread(survivor.worker.process.wait, 60)
        assert survivor.worker.process.returncode == 0, survivor.worker.log_tail()
        done = await wait_for(owner, held, timeout=30)
        assert done["status"] == "succeeded"
        assert done["attempt"] == 1, "finished by the worker that held it, not recovered"
        assert loopback.hits[f"slow-{held}"] == 1
        assert (await wait_for(owner, later, {"pending", "succeeded"}))["status"] == "pending", (
            "a stopping worker takes no new run"
        )
        replacement = await asyncio.to_thread(
            start_worker,
            cluster.settings,
            {**cluster.env, "AUTOMATIONS_HOME": str(cluster.settings.home)},
            "replacement",
        )
        cluster.started.append(replacement)
        assert (await wait_for(owner, later, timeout=60))["status"] == "succeeded"
        assert loopback.hits[f"first-{later}"] == 1
