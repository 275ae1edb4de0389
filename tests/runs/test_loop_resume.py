"""A claim that dies in the middle of a concurrent loop, on the real database and the worker's own ports,
driven in-process: the next claim rebuilds the finished iterations from their records and runs only what
has no success yet.

The claim is cut short by cancelling its task while one iteration's step hangs on a slow loopback
request: nothing more is written (the attempt ends still in memory are lost, as in a crash), the lease
is left to expire, and recovery hands the run to the next claim.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from app.persistence.base import utcnow
from app.persistence.models import Notification, Run, RunStep
from app.persistence.transaction import transaction
from app.services.runs.recovery import recovery_service
from app.worker.runtime import WorkerRuntime
from tests.support.factories import Factory
from tests.support.in_process import execute, in_process_runtime
from tests.support.loopback import Loopback
from tests.support.runs import stored_run

ITEMS = list(range(6))
# Items whose template answers another list for a later claim, as one reading a changing value would.
CHANGING_ITEMS = "{{ [0, 1, 2, 3, 4, 5] if run.attempt == 1 else [5, 4, 3, 2, 1, 0, 6] }}"


@pytest.fixture
async def runtime(app: Any) -> WorkerRuntime:
    return in_process_runtime(app)


def _document(loopback: Loopback, name: str, items: Any) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": "Loop that crashes",
        "plan": [
            {
                "step_id": "fan",
                "for_each": {
                    "items": items,
                    "concurrency": 3,
                    "steps": [
                        {
                            "step_id": "note",
                            "action": "notification",
                            "config": {"title": f"{name}-{{{{ item }}}}", "body": "", "level": "info"},
                        },
                        {
                            "step_id": "call",
                            "action": "http_request",
                            "config": {
                                "method": "POST",
                                # Item 4 hangs in the first claim, long enough for it to be cut short there.
                                "url": f"{loopback.url}/slow/{name}-{{{{ item }}}}"
                                "?seconds={{ 30 if item == 4 and run.attempt == 1 else 0 }}",
                            },
                        },
                    ],
                },
                "output_as": "fan",
            }
        ],
    }


async def _records(app: Any, run_id: uuid.UUID) -> list[RunStep]:
    async with app.state.sessionmaker() as session:
        statement = select(RunStep).where(RunStep.run_id == run_id).order_by(RunStep.started_at)
        return list((await session.scalars(statement)).all())


async def _notes(app: Any, run_id: uuid.UUID) -> list[str]:
    async with app.state.sessionmaker() as session:
        statement = select(Notification.title).where(Notification.run_id == run_id)
        return list((await session.scalars(statement)).all())


@pytest.mark.parametrize("items", [ITEMS, CHANGING_ITEMS], ids=["literal", "template"])
async def test_a_claim_cut_short_mid_loop_resumes_without_running_finished_steps_again(
    app: Any, factory: Factory, runtime: WorkerRuntime, loopback: Loopback, items: Any
) -> None:
    owner = await factory.owner()
    name = f"loop-{uuid.uuid4().hex[:6]}"
    automation = await owner.create_automation(_document(loopback, name, items))
    run = await stored_run(app, owner, automation)

    claim = asyncio.create_task(execute(runtime, run.id))
    for _ in range(600):
        if loopback.hits[f"{name}-4"]:
            break
        await asyncio.sleep(0.05)
    assert loopback.hits[f"{name}-4"] == 1
    claim.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await claim

    before = await _records(app, run.id)
    succeeded = {record.path for record in before if record.status == "succeeded"}
    assert {"fan/0/note", "fan/0/call", "fan/1/note", "fan/2/note"} <= succeeded, succeeded
    assert "fan" not in succeeded
    assert [r.loop_items for r in before if r.path == "fan"] == [ITEMS], "the list is kept as the loop begins"

    # The lease runs out; recovery puts the run back to pending (its wake-up is not needed here).
    async with transaction(app.state.sessionmaker, lambda job: None) as session:
        report = await recovery_service.recover(
            session,
            utcnow() + timedelta(minutes=5),
            requeue_after=timedelta(hours=1),
            limits=runtime.core.limits,
        )
    assert report.released >= 1
    hits_before = dict(loopback.hits)

    assert await execute(runtime, run.id) == "succeeded"

    after = await _records(app, run.id)
    for path in succeeded:
        assert [r.attempt for r in after if r.path == path] == [1], f"{path} ran again"
        _, index, step = path.split("/")
        if step == "call":
            assert loopback.hits[f"{name}-{index}"] == hits_before[f"{name}-{index}"] == 1
    notes = await _notes(app, run.id)
    for item in ITEMS:
        expected = 1 if f"fan/{item}/note" in succeeded else (1, 2)
        assert notes.count(f"{name}-{item}") in ((expected,) if isinstance(expected, int) else expected)
    async with app.state.sessionmaker() as session:
        finished = await session.get(Run, run.id)
    assert finished is not None
    assert finished.attempt == 2
    output = finished.output["fan"]
    assert [answer["json"]["name"] for answer in output] == [f"{name}-{item}" for item in ITEMS]
    (interrupted,) = [r for r in after if r.path == "fan/4/call" and r.attempt == 1]
    assert interrupted.error == {"code": "interrupted", "message": "the worker stopped during this attempt"}
    assert [(r.attempt, r.loop_items) for r in after if r.path == "fan"] == [(1, ITEMS), (2, None)]
