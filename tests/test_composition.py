"""`build_runtime`: what the api and every worker process compose from their settings, without connecting."""

from __future__ import annotations

import uuid
from typing import Any

from app.adapters.pipeline_secrets import VaultSecrets
from app.composition import build_runtime, job_sender
from app.config import Settings
from app.jobs import Job
from app.persistence.db import create_engine, create_sessionmaker
from app.services.runs.limits import RUN_QUEUES
from app.worker import celery_app
from app.worker.celery_app import create_celery


def _build(settings: Settings, send_task: Any = None) -> Any:
    # Creating an engine and a sessionmaker opens no connection: nothing here reaches a server.
    sessions = create_sessionmaker(create_engine(settings.resolved_database_url(), pool_size=1))
    return build_runtime(settings, send_task or (lambda *args, **kwargs: None), sessions)


def _settings() -> Settings:
    return Settings(
        environment="test",
        secret_key="composition-test-secret-that-is-long-enough-42",
        database_url="postgresql://127.0.0.1:1/nowhere",
        redis_url="redis://127.0.0.1:1/0",
        llm_allowed_models=["openai/test-model"],
    )


def test_the_runtime_is_built_from_settings_alone_and_sends_jobs_through_the_given_client() -> None:
    sent: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    runtime = _build(_settings(), lambda *args, **kwargs: sent.append((args, kwargs)))
    runtime.send_job(Job("runs.execute", ("r-1",), queue="runs.fast", countdown=2.0))
    assert sent == [
        (
            ("runs.execute",),
            {
                "args": ("r-1",),
                "kwargs": {},
                "queue": "runs.fast",
                "countdown": 2.0,
                "ignore_result": True,
                "declare": [],
            },
        )
    ]
    assert runtime.limits.pricer is not None
    assert runtime.pipeline.resolver is runtime.capabilities
    assert runtime.pipeline.names[0] == "resolve"
    assert runtime.pipeline.names[-2:] == ["secrets", "execute"]


def test_a_job_sent_before_any_worker_declared_its_queue_waits_in_it(settings: Settings) -> None:
    # A fresh key prefix: no worker has declared these queues, and the sender declares nothing.
    fresh = settings.model_copy(update={"redis_key_prefix": f"compose-{uuid.uuid4().hex[:8]}:"})
    celery = create_celery(fresh)
    job_sender(celery.send_task)(Job("runs.execute", ("r-1",), queue="runs.fast"))
    with celery.connection_for_read() as connection:
        queue = connection.SimpleQueue("runs.fast")
        try:
            message = queue.get(timeout=5)
            message.ack()
        finally:
            queue.close()
    assert message.headers["task"] == "runs.execute"
    assert message.payload[0] == ["r-1"]


async def test_a_space_vocabulary_carries_the_space_capabilities_and_the_allowed_models() -> None:
    runtime = _build(_settings())
    vocabulary = await runtime.vocabulary_for("space-1")
    assert {"http.request", "notify.send", "llm.complete"} <= {c.id for c in vocabulary.capabilities}
    assert "llm.agent_turn" not in {c.id for c in vocabulary.capabilities}
    assert vocabulary.allowed_models == frozenset({"openai/test-model"})
    assert "agent_task" in vocabulary.actions


def test_secret_references_are_answered_by_the_vault() -> None:
    assert isinstance(_build(_settings()).secrets, VaultSecrets)


def test_two_runtimes_share_no_pipeline() -> None:
    first = _build(_settings())
    second = _build(_settings())
    assert first.pipeline is not second.pipeline


def test_the_worker_consumes_every_queue_runs_are_woken_on() -> None:
    assert celery_app.RUN_QUEUES == RUN_QUEUES
    assert set(RUN_QUEUES) < set(celery_app.ALL_QUEUES)
