"""The API's broker publisher: Celery's own message, one kept connection, and a lost wake-up recovered."""

from __future__ import annotations

import asyncio
import base64
import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from celery.utils.saferepr import saferepr
from fastapi import FastAPI
from redis import Redis as SyncRedis
from redis.asyncio import Redis

from app.composition import job_sender
from app.config import Settings
from app.devstack import free_port
from app.integrations.broker import REPR_MAXLEVELS, REPR_MAXSIZE, BrokerPublisher, _preview
from app.jobs import Job
from app.persistence.base import utcnow
from app.persistence.transaction import transaction
from app.services.runs.limits import DispatchLimits
from app.services.runs.recovery import recovery_service
from app.worker.celery_app import create_celery
from tests.support.factories import Factory
from tests.support.runs import get_run, wait_for
from tests.support.servers import flush_prefix
from tests.triggers.test_webhooks import _fire, _webhook_automation

# Values that differ per message (ids, the sending process) or per moment (the eta, compared apart).
_PER_MESSAGE = {("headers", "id"), ("headers", "root_id"), ("headers", "origin"), ("headers", "eta")}
_PER_MESSAGE |= {("properties", "correlation_id"), ("properties", "delivery_tag"), ("properties", "reply_to")}


def _comparable(raw: bytes) -> dict[str, Any]:
    message = json.loads(raw)
    for section, key in _PER_MESSAGE:
        message[section].pop(key)
    message["body"] = json.loads(base64.b64decode(message["body"]))
    return message


@pytest.fixture
def broker(settings: Settings) -> Any:
    """The test Redis under a key prefix of its own, so no worker takes these messages; removed after."""
    isolated = settings.model_copy(update={"redis_key_prefix": f"broker-{uuid.uuid4().hex[:8]}:"})
    client = SyncRedis.from_url(isolated.resolved_redis_url())
    yield isolated, client
    flush_prefix(isolated.resolved_redis_url(), isolated.redis_key_prefix)
    client.close()


JOBS = [
    Job(name="runs.execute", args=("5d2b7c1e-0000-4000-8000-000000000001",), queue="runs.fast"),
    Job(name="system.deliver", args=("x",), kwargs={"attempt": 2}, queue="system", countdown=30),
    Job(name="events.dispatch", args=("e",)),
]


class TestMessage:
    @pytest.mark.parametrize("job", JOBS, ids=[job.name for job in JOBS])
    async def test_the_message_is_the_one_send_task_writes(self, broker: Any, job: Job) -> None:
        isolated, client = broker
        celery = create_celery(isolated)
        try:
            job_sender(celery.send_task)(job)
        finally:
            celery.close()
        publisher = BrokerPublisher.from_url(
            isolated.resolved_redis_url(), key_prefix=isolated.redis_key_prefix, reply_to=celery.thread_oid
        )
        before = datetime.now(UTC)
        try:
            await publisher.publish(job)
        finally:
            await publisher.aclose()
        queue = isolated.redis_key_prefix + (job.queue or "system")
        ours, theirs = client.lpop(queue), client.lpop(queue)
        assert ours is not None
        assert theirs is not None
        assert client.llen(queue) == 0
        assert _comparable(ours) == _comparable(theirs)
        mine, celerys = json.loads(ours), json.loads(theirs)
        assert mine["properties"]["reply_to"] == celerys["properties"]["reply_to"]
        assert mine["headers"]["id"] == mine["headers"]["root_id"] == mine["properties"]["correlation_id"]
        if job.countdown is None:
            assert mine["headers"]["eta"] is None is celerys["headers"]["eta"]
        else:
            eta = datetime.fromisoformat(mine["headers"]["eta"])
            assert (
                before + timedelta(seconds=job.countdown)
                <= eta
                <= datetime.now(UTC) + timedelta(seconds=job.countdown)
            )
            assert abs(eta - datetime.fromisoformat(celerys["headers"]["eta"])) < timedelta(seconds=30)

    async def test_the_key_prefix_names_the_list(self, broker: Any) -> None:
        isolated, client = broker
        prefix = isolated.redis_key_prefix
        publisher = BrokerPublisher.from_url(isolated.resolved_redis_url(), key_prefix=prefix + "a:")
        try:
            await publisher.publish(Job(name="runs.execute", args=("r",), queue="runs.medium"))
        finally:
            await publisher.aclose()
        assert client.llen(prefix + "a:runs.medium") == 1
        assert client.llen(prefix + "runs.medium") == 0


class TestCoalescing:
    async def test_a_wake_up_is_pushed_only_while_none_waits_on_its_queue(self, broker: Any) -> None:
        isolated, client = broker
        prefix = isolated.redis_key_prefix
        publisher = BrokerPublisher.from_url(
            isolated.resolved_redis_url(), key_prefix=prefix, coalesce=("runs.fast",)
        )
        wake = Job(name="runs.execute", args=("r1",), queue="runs.fast")
        try:
            assert await publisher.publish(wake) is True
            assert await publisher.publish(Job(name="runs.execute", args=("r2",), queue="runs.fast")) is False
            assert client.llen(prefix + "runs.fast") == 1
            # Taken by a consumer: the queue is empty again, so the next wake-up goes out.
            assert client.rpop(prefix + "runs.fast") is not None
            assert await publisher.publish(Job(name="runs.execute", args=("r3",), queue="runs.fast")) is True
            # Asked to push regardless (a drain's own way back after its batch), it does.
            assert await publisher.publish(
                Job(name="runs.execute", args=("r4",), queue="runs.fast"), coalesce=False
            )
            assert client.llen(prefix + "runs.fast") == 2
            assert client.rpop(prefix + "runs.fast") is not None
            # Other queues, and a wake-up held for later, are never coalesced.
            for _ in range(2):
                assert await publisher.publish(Job(name="runs.execute", args=("m",), queue="runs.medium"))
                assert await publisher.publish(
                    Job(name="runs.execute", args=("later",), queue="runs.fast", countdown=5)
                )
        finally:
            await publisher.aclose()
        assert client.llen(prefix + "runs.medium") == 2
        waiting = [
            json.loads(raw)["headers"]["argsrepr"] for raw in client.lrange(prefix + "runs.fast", 0, -1)
        ]
        assert sorted(waiting) == ["('later',)", "('later',)", "('r4',)"]

    async def test_racing_publishers_leave_one_wake_up(self, broker: Any) -> None:
        isolated, client = broker
        prefix = isolated.redis_key_prefix
        publishers = [
            BrokerPublisher.from_url(
                isolated.resolved_redis_url(), key_prefix=prefix, coalesce=("runs.fast",)
            )
            for _ in range(4)
        ]
        try:
            pushed = await asyncio.gather(
                *(
                    publisher.publish(Job(name="runs.execute", args=(f"r{index}",), queue="runs.fast"))
                    for index in range(50)
                    for publisher in publishers
                )
            )
        finally:
            for publisher in publishers:
                await publisher.aclose()
        assert pushed.count(True) == 1
        assert client.llen(prefix + "runs.fast") == 1


PREVIEWED = [("r",), ("x", 1, None, 2.5), ("é\n",), ("x" * 2000,), ((1, [2]),), {"a": 2, "b": "c"}, {}, ()]


@pytest.mark.parametrize("value", PREVIEWED)
def test_the_argument_preview_is_celerys(value: Any) -> None:
    assert _preview(value) == saferepr(value, REPR_MAXSIZE, maxlevels=REPR_MAXLEVELS)


class TestConnection:
    async def test_many_publishes_share_one_connection(self, broker: Any) -> None:
        isolated, client = broker
        name = f"publisher-{uuid.uuid4().hex[:8]}"
        publisher = BrokerPublisher(
            Redis.from_url(isolated.resolved_redis_url(), client_name=name),
            key_prefix=isolated.redis_key_prefix,
        )
        try:
            for index in range(25):
                await publisher.publish(Job(name="runs.execute", args=(str(index),), queue="runs.fast"))
            connections = [entry for entry in client.client_list() if entry.get("name") == name]
        finally:
            await publisher.aclose()
        assert client.llen(isolated.redis_key_prefix + "runs.fast") == 25
        assert len(connections) == 1

    async def test_a_dead_broker_raises_instead_of_hanging(self) -> None:
        publisher = BrokerPublisher.from_url(f"redis://127.0.0.1:{free_port()}/0")
        try:
            with pytest.raises(Exception):  # noqa: B017 - the client's connection error, whatever its class
                await publisher.publish(Job(name="runs.execute", args=("r",), queue="runs.fast"))
        finally:
            await publisher.aclose()


class TestThroughTheApi:
    async def test_a_fire_wakes_a_real_worker_through_the_publisher(
        self, factory: Factory, app: FastAPI, worker: Any
    ) -> None:
        assert isinstance(app.state.publisher, BrokerPublisher)
        owner = await factory.owner()
        automation_id, _, token = await _webhook_automation(owner)
        response = await _fire(owner.client, automation_id, token)
        assert response.status_code == 202, response.text
        run = await wait_for(owner, response.json()["run_id"])
        assert run["status"] == "succeeded"

    async def test_a_broker_down_at_publish_leaves_the_run_for_recovery(
        self, factory: Factory, app: FastAPI, worker: Any, caplog: pytest.LogCaptureFixture
    ) -> None:
        owner = await factory.owner()
        automation_id, _, token = await _webhook_automation(owner)
        working = app.state.publisher
        app.state.publisher = BrokerPublisher.from_url(f"redis://127.0.0.1:{free_port()}/0")
        try:
            response = await _fire(owner.client, automation_id, token)
        finally:
            await app.state.publisher.aclose()
            app.state.publisher = working
        # The row was committed before the publish: the caller is told its run exists.
        assert response.status_code == 202, response.text
        assert "not sent" in caplog.text
        run_id = response.json()["run_id"]
        assert (await get_run(owner, run_id))["status"] == "pending"
        # Recovery (beat's tick) sends the lost wake-up again, and a worker runs it.
        async with transaction(app.state.sessionmaker, app.state.send_job) as session:
            report = await recovery_service.recover(
                session,
                utcnow() + timedelta(minutes=5),
                requeue_after=timedelta(seconds=1),
                limits=DispatchLimits(),
            )
        assert report.requeued >= 1
        run = await wait_for(owner, run_id)
        assert run["status"] == "succeeded"
