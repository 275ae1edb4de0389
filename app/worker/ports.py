"""The ports a run's action context gets in a worker: HTTP and LLMs through the egress guard,
notifications, the run's cost ledger and its automation's key/value state."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import deque
from datetime import timedelta
from typing import Any

from app import metrics
from app.adapters.artifact_writer import RunArtifacts
from app.adapters.run_waits import RunWaits
from app.definitions.signals import StepError
from app.errors import AppError
from app.integrations.http import GuardedHttp
from app.persistence.autocommit import AutocommitWrites
from app.persistence.base import utcnow
from app.persistence.models import AutomationKv, Run
from app.registry.llm_ports import LlmReply
from app.registry.ports import InvocationRecord, KvEntry, Ports
from app.services.governance.invocations import invocation_service
from app.services.governance.ledger import ledger_service
from app.services.resources.kv import KvTarget, kv_service
from app.services.resources.notifications import notification_service
from app.services.runs.execution import PortsFactory
from app.services.runs.journal import Writes
from app.services.triggers.events import event_service
from app.worker.knowledge import RunKnowledge
from app.worker.runtime import WorkerRuntime

# The per-run call limit's window.
CALL_WINDOW_SECONDS = 60.0


class RunNotifications:
    """Notifications written by one statement of their own: the side effect is durable when the call
    returns."""

    def __init__(self, writes: Writes, run: Run) -> None:
        self.writes = writes
        self.run = run

    async def send(self, *, level: str, title: str, body: str) -> str:
        async with self.writes() as session:
            notification = await notification_service.create(
                session, space_id=self.run.space_id, run_id=self.run.id, level=level, title=title, body=body
            )
        return str(notification.id)


class RunEvents:
    """Events a run's handlers publish (a plugin's emitter): into the run's space, each in its own
    transaction, carrying the run's chain depth so event chains stay bounded."""

    def __init__(self, worker: WorkerRuntime, run: Run) -> None:
        self.worker = worker
        self.run = run

    async def publish(self, event_type: str, payload: dict[str, Any], *, source_id: str) -> str:
        async with self.worker.unit_of_work() as session:
            event = await event_service.publish(
                session, self.run.space_id, event_type, payload, source_id, chain_depth=self.run.chain_depth
            )
        return str(event.id)


class RunLedger:
    """The run's LLM spending, on the claim's connection: each read one statement, each record (the
    ledger row and the run's totals) a short transaction there."""

    def __init__(self, claim: AutocommitWrites, run: Run) -> None:
        self.claim = claim
        self.run = run

    async def spent(self) -> tuple[float, int]:
        async with self.claim.write() as session:
            return await ledger_service.run_totals(session, self.run.id)

    async def spent_today(self) -> float:
        async with self.claim.write() as session:
            return await ledger_service.spent_today(session, self.run.automation_id, utcnow())

    async def record(self, *, step_id: str, reply: LlmReply) -> None:
        async with self.claim.atomic() as session:
            await ledger_service.record(session, self.run, step_id, reply)


def _kv_entry(row: AutomationKv) -> KvEntry:
    return KvEntry(
        key=row.key,
        value=row.value,
        expires_at=row.expires_at.isoformat() if row.expires_at else None,
        updated_at=row.updated_at.isoformat(),
    )


class RunKv:
    """The run's automation's key/value state, each call its own short transaction (durable on return).

    A refused key or value, or a full store, fails the call for good (`StepError`, not retried).
    """

    def __init__(self, worker: WorkerRuntime, run: Run) -> None:
        self.worker = worker
        self.target = KvTarget(space_id=run.space_id, automation_id=run.automation_id)

    async def get(self, key: str) -> KvEntry | None:
        try:
            async with self.worker.unit_of_work() as session:
                row = await kv_service.get(session, self.target, key)
                return _kv_entry(row) if row is not None else None
        except AppError as exc:
            raise StepError(exc.code, exc.message, retryable=False) from None

    async def set(self, key: str, value: Any, *, ttl_seconds: int | None) -> KvEntry:
        try:
            async with self.worker.unit_of_work() as session:
                return _kv_entry(
                    await kv_service.set(session, self.target, key, value, ttl_seconds=ttl_seconds)
                )
        except AppError as exc:
            raise StepError(exc.code, exc.message, retryable=False) from None

    async def delete(self, key: str) -> bool:
        try:
            async with self.worker.unit_of_work() as session:
                return await kv_service.delete(session, self.target, key)
        except AppError as exc:
            raise StepError(exc.code, exc.message, retryable=False) from None

    async def list(self, *, prefix: str, limit: int, cursor: str | None) -> tuple[list[KvEntry], str | None]:
        try:
            async with self.worker.unit_of_work() as session:
                page = await kv_service.list(session, self.target, prefix=prefix, limit=limit, cursor=cursor)
                return [_kv_entry(row) for row in page.items], page.next_cursor
        except AppError as exc:
            raise StepError(exc.code, exc.message, retryable=False) from None


class RunInvocations:
    """The run's invocation rows, all on the claim's connection, each durable when the call returns: a
    finished call's row and the fenced moves of an approved call are one statement each; asking for an
    approval, which writes several rows, is a transaction there."""

    def __init__(self, claim: AutocommitWrites, run: Run) -> None:
        self.claim = claim
        self.run = run

    async def record(self, record: InvocationRecord) -> None:
        async with self.claim.write() as session:
            await invocation_service.record(session, self.run, record)
        metrics.count_invocation(record.mode)

    async def request_approval(self, record: InvocationRecord) -> str:
        metrics.count_invocation(record.mode)
        async with self.claim.atomic() as session:
            asked = await invocation_service.request_approval(session, self.run, record)
        if isinstance(asked, StepError):
            # Refused past the pending caps: the denied row committed with the check.
            raise asked
        return asked

    async def start_approved(self, invocation_id: str) -> bool:
        async with self.claim.write() as session:
            return await invocation_service.start_approved(
                session, uuid.UUID(invocation_id), self.run.attempt
            )

    async def finish_approved(self, invocation_id: str, record: InvocationRecord) -> None:
        async with self.claim.write() as session:
            await invocation_service.finish_approved(
                session, uuid.UUID(invocation_id), self.run.attempt, record
            )


class ClaimCallLimiter:
    """AUTOMATIONS_RUN_CALL_RATE_LIMIT calls per run per minute, counted by the claim that holds the run.

    One claim holds a run at a time (its lease and attempt fence every write), so the claim counts the
    run's calls where it makes them, with no round trip per call and nothing to fail open when Redis is
    away. A later claim of the run (a retry, an approval's resume, a takeover) starts from the calls the
    run recorded in the last minute, read once, at its first call.
    """

    def __init__(
        self, limit: int, run: Run, writes: Writes, window_seconds: float = CALL_WINDOW_SECONDS
    ) -> None:
        self.limit = limit
        self.run = run
        self.writes = writes
        self.window_seconds = window_seconds
        self._calls: deque[float] = deque()
        self._seeded = run.attempt <= 1
        self._seeding = asyncio.Lock()

    async def allow(self) -> bool:
        """Count one call of this claim's run; False when it is over the limit for the last minute."""
        if not self._seeded:
            # Iterations of a loop call concurrently: the run's earlier calls are counted in once.
            async with self._seeding:
                if not self._seeded:
                    await self._seed()
        now = time.monotonic()
        while self._calls and self._calls[0] <= now - self.window_seconds:
            self._calls.popleft()
        if len(self._calls) >= self.limit:
            return False
        self._calls.append(now)
        return True

    async def _seed(self) -> None:
        wall = utcnow()
        async with self.writes() as session:
            made = await invocation_service.call_times_since(
                session, self.run.id, wall - timedelta(seconds=self.window_seconds)
            )
        now = time.monotonic()
        self._calls.extend(now - (wall - at).total_seconds() for at in made)
        self._seeded = True


def ports_for(worker: WorkerRuntime) -> PortsFactory:
    """The ports of each claimed run: the worker's egress guard and LLM adapter, the run's own ledger
    and artifacts, and the worker's Slack and SMTP clients (built once per process)."""

    def make(run: Run, claim: AutocommitWrites) -> Ports:
        writes = claim.write
        http = GuardedHttp(worker.core.egress_allow)
        return Ports(
            http=http,
            notifications=RunNotifications(writes, run),
            llm=worker.core.llm,
            ledger=RunLedger(claim, run),
            slack=worker.slack,
            mail=worker.mail,
            invocations=RunInvocations(claim, run),
            call_limiter=ClaimCallLimiter(worker.core.settings.run_call_rate_limit, run, writes),
            artifacts=RunArtifacts(
                worker.unit_of_work,
                worker.core.artifact_store,
                run,
                worker.core.artifact_limits,
                link_secret=worker.core.settings.resolved_secret_key(),
            ),
            download=http,
            kv=RunKv(worker, run),
            events=RunEvents(worker, run),
            knowledge=RunKnowledge(worker, run),
            waits=RunWaits(
                worker.unit_of_work,
                run,
                worker.core.limits,
                max_wait_seconds=worker.core.settings.max_wait_seconds,
            ),
        )

    return make
