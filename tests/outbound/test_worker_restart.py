"""A worker that dies between two attempts: the retry still happens, once, from the delivery's row."""

from __future__ import annotations

import asyncio
import os
import signal
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from app.config import Settings
from app.worker.celery_app import create_celery
from tests.support.factories import Factory
from tests.support.outbound import KeptJobs, delivery, endpoint, owe_one
from tests.support.processes import ServiceProcess, start_worker
from tests.support.receivers import Receivers


@dataclass
class Isolated:
    """A worker and beat on broker keys of their own, so no other process of the session takes the jobs."""

    settings: Settings
    env: dict[str, str]
    worker: ServiceProcess
    beat: ServiceProcess


@pytest.fixture
async def isolated(settings: Settings, service_env: dict[str, str]) -> AsyncIterator[Isolated]:
    prefix = f"restart-{uuid.uuid4().hex[:8]}:"
    own = settings.model_copy(update={"redis_key_prefix": prefix})
    env = {**service_env, "AUTOMATIONS_REDIS_KEY_PREFIX": prefix}
    worker = await asyncio.to_thread(start_worker, own, env, "restart-a")
    beat = ServiceProcess.cli("restart-beat", ["beat"], env, settings.home)
    running = Isolated(own, env, worker, beat)
    try:
        yield running
    finally:
        running.worker.stop(graceful=False)
        running.beat.stop(graceful=False)


async def test_a_worker_restart_between_attempts_still_retries_once(
    factory: Factory, receivers: Receivers, kept: KeptJobs, isolated: Isolated
) -> None:
    owner = await factory.owner()
    # The first answer asks for a retry in 3000 s: 3 s at the tests' schedule scale.
    target = await endpoint(owner, receivers, "flaky/restarted?times=1&retry_after=3000")
    delivery_id = await owe_one(kept, target.id)
    celery = create_celery(isolated.settings)
    for job in kept.jobs:
        celery.send_task(job.name, args=job.args, queue=job.queue)

    receivers.wait_for("restarted", 1)
    deadline = time.monotonic() + 30
    while (await delivery(kept, delivery_id))[0].attempts < 1 or not (await delivery(kept, delivery_id))[1]:
        assert time.monotonic() < deadline, "the first attempt was not recorded"
        await asyncio.sleep(0.1)
    # Crash: SIGKILL the whole worker, with whatever retry message it holds.
    os.killpg(isolated.worker.process.pid, signal.SIGKILL)
    isolated.worker.process.wait()
    isolated.worker = await asyncio.to_thread(start_worker, isolated.settings, isolated.env, "restart-b")

    second = receivers.wait_for("restarted", 2, timeout=60)[1]
    assert second.error is None
    deadline = time.monotonic() + 30
    while (row := (await delivery(kept, delivery_id))[0]).status == "pending":
        assert time.monotonic() < deadline
        await asyncio.sleep(0.1)
    row, attempts = await delivery(kept, delivery_id)
    assert row.status == "succeeded"
    assert [(a.attempt, a.status_code) for a in attempts] == [(1, 503), (2, 200)]
    # Another tick or a late message finds nothing more to send.
    await asyncio.sleep(2)
    assert len(receivers.received["restarted"]) == 2
