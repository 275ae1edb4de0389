"""Approval latency on a real worker: an approved call's decision → the call executed, queue idle.

The automation is the run benchmarks' three-step plan with `write_policy: always_draft`, so its
`notification` step asks for approval. One run at a time: fire it, wait until it is
`awaiting_approval`, approve the call through the API (`POST …/approvals/{id}/approve`), and read the
invocation's `decided_at` (written by the API in the decision's transaction) and `completed_at` (written
by the worker when the call finished). Between them: the commit, the wake-up through the broker, the
claim, the journal's reload of the earlier steps, and the call itself.

Floor: one Celery no-op round trip plus two single-row INSERT transactions (the claim and the call's
record), measured in the same run on the same worker.
"""

from __future__ import annotations

import asyncio
import copy
import time
import uuid
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

import asyncpg

from app.persistence.db import create_engine, create_sessionmaker
from app.persistence.transaction import transaction
from app.services.automations.store import StatusAction, automation_service
from app.services.identity.auth import auth_service
from app.services.identity.spaces import space_service
from bench.data import THREE_STEPS, Hook, webhook_body
from bench.fire import fire_many, http_client
from bench.floors import celery_round_trips, sequential_write_latencies
from bench.report import Row, median, ms, percentile, ratio
from bench.stack import BenchStack, log

POLL_SECONDS = 0.002
# The call's row, and whether its run has paused on it yet (the row is written first).
_INVOCATION = (
    "SELECT i.id, i.status, i.decided_at, i.completed_at, r.status = 'awaiting_approval' AS paused"
    " FROM action_invocations i JOIN runs r ON r.id = i.run_id"
    " WHERE i.run_id = $1::uuid AND i.mode = 'require_approval'"
)


@dataclass(frozen=True)
class ApprovalHook:
    hook: Hook
    space_id: str
    owner_token: str


def _refuse_jobs(job: Any) -> None:
    raise RuntimeError(f"creating bench data sent a job ({job.name})")


async def _create(database_url: str) -> ApprovalHook:
    definition = copy.deepcopy(THREE_STEPS)
    definition["name"] = "Bench: approval"
    definition["execution"] = {"write_policy": "always_draft"}
    engine = create_engine(database_url, pool_size=1, application_name="automations-bench")
    try:
        async with transaction(create_sessionmaker(engine), _refuse_jobs) as session:
            made = await space_service.bootstrap(
                session, space_name="Bench approvals", email=f"bench-{uuid.uuid4().hex[:8]}@example.test"
            )
            caller = await auth_service.authenticate(session, made.token)
            access = await auth_service.space_access(session, caller, made.space.id)
            saved = await automation_service.create(session, access, definition)
            await automation_service.change_status(
                session, access, saved.automation.id, StatusAction.activate
            )
            hook = Hook(str(saved.automation.id), saved.tokens[0].token)
    finally:
        await engine.dispose()
    return ApprovalHook(hook, str(made.space.id), made.token)


async def _wait(
    connection: asyncpg.Connection, run_id: str, status: str, *, paused: bool = False, limit: float = 60
) -> Any:
    deadline = time.monotonic() + limit
    while True:
        row = await connection.fetchrow(_INVOCATION, run_id)
        if row is not None and row["status"] == status and (row["paused"] or not paused):
            return row
        if row is not None and row["status"] in {"failed", "denied", "expired"}:
            raise RuntimeError(f"the approved call of run {run_id} ended {row['status']}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"run {run_id}'s call did not reach {status} within {limit:g} s")
        await asyncio.sleep(POLL_SECONDS)


async def _samples(stack: BenchStack, made: ApprovalHook, warmup: int, count: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {"executed": [], "answer": []}
    connection = await asyncpg.connect(stack.dsn)
    headers = {"Authorization": f"Bearer {made.owner_token}"}
    try:
        async with http_client(stack.api_url, 1) as client:
            for index in range(warmup + count):
                _, _, run_ids = await fire_many(client, [made.hook], 1, 1, webhook_body(index))
                pending = await _wait(connection, run_ids[0], "pending", paused=True)
                started = time.perf_counter()
                answer = await client.post(
                    f"/api/v1/spaces/{made.space_id}/approvals/{pending['id']}/approve",
                    json={"scope": "once"},
                    headers=headers,
                )
                answered = time.perf_counter() - started
                if answer.status_code != HTTPStatus.OK:
                    raise RuntimeError(f"approve answered {answer.status_code}: {answer.text[:200]}")
                done = await _wait(connection, run_ids[0], "executed")
                if index >= warmup:
                    samples["executed"].append((done["completed_at"] - done["decided_at"]).total_seconds())
                    samples["answer"].append(answered)
    finally:
        await connection.close()
    return samples


def run(stack: BenchStack, warmup: int, count: int) -> list[Row]:
    stack.api()
    stack.worker()
    made = asyncio.run(_create(stack.database_url))
    log(f"approval latency: {count} sequential approvals after {warmup} warm-up")
    samples = asyncio.run(_samples(stack, made, warmup, count))
    noop = celery_round_trips(stack, count, warmup)
    writes = asyncio.run(sequential_write_latencies(stack.dsn, count, warmup))
    floor = median(noop) + 2 * median(writes)
    executed = samples["executed"]
    return [
        Row(
            "approval latency, decided → call executed (idle queue)",
            f"p50 {ms(percentile(executed, 50))}, p99 {ms(percentile(executed, 99))}",
            f"{ms(floor)} = Celery no-op round trip {ms(median(noop))} + 2 x INSERT tx {ms(median(writes))}",
            ratio(percentile(executed, 50), floor) + " (p50)",
            f"{count} sequential approvals after {warmup} warm-up; the approve request answered in "
            f"{ms(median(samples['answer']))} (median)",
            target="≤ 3x (p50)",
        )
    ]
