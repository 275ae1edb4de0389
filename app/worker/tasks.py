"""Thin Celery tasks: open the runtime, call a service, nothing else."""

from __future__ import annotations

import asyncio
import logging
import socket
import uuid
from datetime import UTC, datetime, timedelta

from celery import Task, shared_task
from redis.exceptions import RedisError

from app import metrics
from app.jobs import Job
from app.services.governance.approvals import approval_service
from app.services.governance.notices import NoticeChannels, approval_notices
from app.services.health import database_status, record_beat_tick, sample_queue_depths
from app.services.knowledge.indexing import indexing_service
from app.services.mcp.harvest import harvest_service
from app.services.outbound.deliveries import DeliverySettings, delivery_service
from app.services.resources.artifacts import artifact_service
from app.services.resources.vault import SecretVault, keyring_for
from app.services.runs.execution import ExecutionSettings, execution_service
from app.services.runs.limits import EXECUTE_TASK, RUN_QUEUES
from app.services.runs.queue_depth import queue_depth_service
from app.services.runs.recovery import recovery_service
from app.services.runs.waking import DUE_BATCH, waker
from app.services.triggers.events import event_service
from app.services.triggers.schedules import TICK_BATCH, schedule_service
from app.worker.ports import ports_for
from app.worker.runtime import run, runtime, stopping

logger = logging.getLogger(__name__)

# A drain's wake-up gives up after this long: the worker's broker client has no timeout of its own.
WAKE_TIMEOUT_SECONDS = 2.0
# An event still undispatched after this long lost its wake-up (crash between commit and enqueue).
EVENT_STALE_AFTER = timedelta(seconds=10)
# The queues whose depth beat's tick samples: every queue the worker consumes.
CELERY_QUEUES = (*RUN_QUEUES, "system")
# Batches of due schedules one beat tick fires at most (the rest wait for the next tick).
MAX_SCHEDULE_BATCHES = 200
# Batches of due waits one wait tick satisfies at most (the rest wait for the next tick).
MAX_WAIT_BATCHES = 20


async def _tick() -> str:
    worker = runtime()
    now = datetime.now(UTC)
    # Due schedules in batches, each its own transaction: its runs' wake-ups leave at its commit.
    for _ in range(MAX_SCHEDULE_BATCHES):
        async with worker.unit_of_work() as session:
            report = await schedule_service.tick(session, now, worker.core.limits)
        if report.due < TICK_BATCH:
            break
    async with worker.unit_of_work() as session:
        await event_service.sweep(session, now, stale_after=EVENT_STALE_AFTER)
    async with worker.unit_of_work() as session:
        await recovery_service.recover(
            session,
            now,
            requeue_after=timedelta(seconds=worker.core.settings.run_requeue_after_seconds),
            limits=worker.core.limits,
        )
    async with worker.unit_of_work() as session:
        # Waiting runs whose wait was satisfied but who were never woken (a scan of waiting runs: here,
        # not in the every-second wait tick, whose cost follows the due waits alone).
        await waker.recover(session, now, worker.core.limits)
    async with worker.unit_of_work() as session:
        await delivery_service.sweep(session, now)
    async with worker.unit_of_work() as session:
        swept = await approval_service.sweep(session, now, worker.core.limits)
    async with worker.unit_of_work() as session:
        await approval_notices.sweep(session, now)
    metrics.set_pending_approvals(swept.pending)
    async with worker.unit_of_work() as session:
        await harvest_service.sweep(session, now, timedelta(hours=worker.core.settings.mcp_reharvest_hours))
    await artifact_service.sweep(worker.unit_of_work, worker.core.artifact_store, now)
    async with worker.unit_of_work() as session:
        await queue_depth_service.sample(session, now)
        if metrics.enabled():
            await queue_depth_service.gauge_claimable(session, now, RUN_QUEUES)
    if metrics.enabled():
        await sample_queue_depths(worker.redis, CELERY_QUEUES, worker.core.settings.redis_key_prefix)
    return await record_beat_tick(worker.redis, now, worker.core.settings.redis_key_prefix)


@shared_task(name="system.tick")  # type: ignore[untyped-decorator]
def tick() -> str:
    """Beat's periodic tick: due schedules, undispatched events, stale leases, lost wake-ups, deliveries,
    expired approvals, expired artifacts, re-harvests of MCP connections."""
    return run(_tick())


async def _wait_tick() -> int:
    worker = runtime()
    now = datetime.now(UTC)
    satisfied = 0
    # Due waits in batches, each its own transaction: its runs' wake-ups leave at its commit.
    for _ in range(MAX_WAIT_BATCHES):
        async with worker.unit_of_work() as session:
            report = await waker.tick(session, now, worker.core.limits)
        satisfied += report.satisfied
        if report.satisfied < DUE_BATCH:
            break
    return satisfied


@shared_task(name="system.wait_tick")  # type: ignore[untyped-decorator]
def wait_tick() -> int:
    """Beat's wait tick: satisfy the waits whose time came (a `wait`'s due time, a `wait_for_event`'s
    timeout) and wake their runs."""
    return run(_wait_tick())


async def _dispatch_event(event_id: str) -> None:
    worker = runtime()
    async with worker.unit_of_work() as session:
        await event_service.dispatch(
            session,
            uuid.UUID(event_id),
            limits=worker.core.limits,
            max_chain_depth=worker.core.settings.max_chain_depth,
            waits=waker,
        )


@shared_task(name="events.dispatch")  # type: ignore[untyped-decorator]
def dispatch_event(event_id: str) -> None:
    """Match one committed event to triggers and fire the matches."""
    run(_dispatch_event(event_id))


async def _wake_queue(queue: str, run_id: uuid.UUID, *, always: bool = False) -> None:
    """A drain's wake-up of its queue (see `execute_and_continue`), unless one already waits there or
    `always`. A broker that cannot take it, or does not answer in time, costs only time: recovery wakes a
    run left pending, and the claim in hand goes on."""
    job = Job(EXECUTE_TASK, (str(run_id),), queue=queue)
    try:
        await asyncio.wait_for(runtime().publisher.publish(job, coalesce=not always), WAKE_TIMEOUT_SECONDS)
    except (RedisError, TimeoutError) as exc:
        logger.warning("could not wake queue %s: %s", queue, type(exc).__name__)


async def _execute(run_id: str, queue: str | None) -> str:
    worker = runtime()
    settings = ExecutionSettings(
        worker=worker.name,
        lease=timedelta(seconds=worker.core.settings.run_lease_seconds),
        limits=worker.core.limits,
        on_failure_reserve_fraction=worker.core.settings.run_on_failure_reserve_fraction,
        on_failure_reserve_min_seconds=worker.core.settings.run_on_failure_reserve_min_seconds,
        direct_claims=worker.core.settings.direct_claim_batch,
    )
    deps = worker.core.execution(ports_for(worker), _wake_queue if settings.direct_claims else None)
    # Only the queue this message came from: the worker consumes it, whatever else it consumes.
    queues = (queue,) if queue in RUN_QUEUES else ()
    answers = await execution_service.execute_and_continue(
        worker.claim_writes, uuid.UUID(run_id), queues, settings, deps, stopping
    )
    return answers[0] if len(answers) == 1 else f"{answers[0]} (+{len(answers) - 1} claimed directly)"


@shared_task(name="runs.execute", bind=True)  # type: ignore[untyped-decorator]
def execute_run(self: Task, run_id: str) -> str:
    """Wake-up for one run. The claim in the database decides whether this delivery does anything; when
    it ran the run, the task goes on with the next pending runs of the same queue, claimed directly."""
    delivery = self.request.delivery_info or {}
    return run(_execute(run_id, delivery.get("routing_key")))


async def _deliver_webhook(delivery_id: str) -> str:
    worker = runtime()
    settings = DeliverySettings(
        keyring=keyring_for(worker.core.settings),
        allow=worker.core.egress_allow,
        timeout_seconds=worker.core.settings.webhook_delivery_timeout_seconds,
        retry_scale=worker.core.settings.webhook_retry_scale,
        disable_after_failures=worker.core.settings.webhook_disable_after_failures,
    )
    return await delivery_service.attempt(worker.unit_of_work, uuid.UUID(delivery_id), settings)


async def _send_approval_notice(notice_id: str) -> str:
    worker = runtime()
    settings = worker.core.settings
    channels = NoticeChannels(
        slack=worker.slack,
        vault=SecretVault(keyring_for(settings)),
        mail=worker.mail,
        public_url=settings.public_url,
    )
    async with worker.unit_of_work() as session:
        outcome = await approval_notices.send(session, uuid.UUID(notice_id), channels)
    return outcome.status


@shared_task(name="system.send_approval_notice")  # type: ignore[untyped-decorator]
def send_approval_notice(notice_id: str) -> str:
    """Send one approval notice (a Slack message, its update, an email); failures are retried from the row."""
    return run(_send_approval_notice(notice_id))


@shared_task(name="system.deliver_webhook")  # type: ignore[untyped-decorator]
def deliver_webhook(delivery_id: str) -> str:
    """Wake-up for one owed webhook delivery; the claim in the database decides whether it is sent."""
    return run(_deliver_webhook(delivery_id))


async def _harvest(connection_id: str) -> str:
    worker = runtime()
    return await harvest_service.harvest(worker.unit_of_work, uuid.UUID(connection_id), worker.core.mcp)


@shared_task(name="system.mcp_harvest")  # type: ignore[untyped-decorator]
def mcp_harvest(connection_id: str) -> str:
    """List one MCP connection's tools and record them as the space's capabilities."""
    return run(_harvest(connection_id))


@shared_task(name="system.ping", ignore_result=False)  # type: ignore[untyped-decorator]
def ping() -> dict[str, str]:
    """Answer with the worker's host name and whether it reaches the database.

    `automations check` sends one per queue: a worker that reaches Redis but not PostgreSQL is a
    common misconfiguration, and it shows here rather than as stuck runs.
    """
    return {"pong": socket.gethostname(), "database": run(database_status(runtime().engine))}


async def _index_document(document_id: str) -> str:
    worker = runtime()
    outcome = await indexing_service.index(
        worker.unit_of_work, uuid.UUID(document_id), worker.core.knowledge, worker.core.embedder
    )
    return outcome.status if outcome is not None else "skipped"


@shared_task(name="system.index_document")  # type: ignore[untyped-decorator]
def index_document(document_id: str) -> str:
    """Extract, chunk (and embed) one pending document, then announce it; a no-op when not pending."""
    return run(_index_document(document_id))
