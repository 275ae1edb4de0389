"""The wake-ups a drain leaves where fires coalesce theirs: one claim after another in the test's own
process (`execute_and_continue`), with the queue's wake-ups recorded instead of sent.

A run pending with no message of its own is claimed only by some drain, so a drain may stop without
leaving a wake-up only when it found nothing pending (`tests/runs/test_direct_claims.py` runs the same
through a real worker and broker).
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from app.persistence.models import Run
from app.services.runs.execution import ExecutionSettings, execution_service
from app.worker.ports import ports_for
from tests.support.factories import Factory
from tests.support.in_process import in_process_runtime
from tests.support.runs import definition, private_queue, stored_run

ONE_STEP = definition({"step_id": "only", "action": "transform_data", "config": {"output": 1}})


class Recorder:
    """Stands where the worker's broker publisher would: what the drain asked to send."""

    def __init__(self) -> None:
        self.wakes: list[tuple[str, uuid.UUID, bool]] = []

    async def __call__(self, queue: str, run_id: uuid.UUID, *, always: bool = False) -> None:
        self.wakes.append((queue, run_id, always))


async def _drain(
    app: Any, factory: Factory, pending: int, direct_claims: int, *, stopping: bool = False
) -> tuple[list[str], Recorder, list[uuid.UUID], dict[uuid.UUID, str], str]:
    """The answers of one drain over `pending` runs stored on a queue of the test's own, the wake-ups it
    asked for, the runs, their statuses after it, and that queue."""
    owner = await factory.owner()
    automation = await owner.create_automation(ONE_STEP)
    queue = private_queue()
    run_ids = [(await stored_run(app, owner, automation, queue=queue)).id for _ in range(pending)]
    runtime = in_process_runtime(app)
    settings = ExecutionSettings(
        worker=runtime.name,
        lease=timedelta(seconds=30),
        limits=runtime.core.limits,
        direct_claims=direct_claims,
    )
    recorder = Recorder()
    deps = runtime.core.execution(ports_for(runtime), recorder)
    answers = await execution_service.execute_and_continue(
        runtime.claim_writes, run_ids[0], (queue,), settings, deps, lambda: stopping
    )
    async with app.state.sessionmaker() as session:
        rows = await session.execute(select(Run.id, Run.status).where(Run.id.in_(run_ids)))
        statuses = {row.id: row.status for row in rows}
    return answers, recorder, run_ids, statuses, queue


async def test_a_used_up_batch_sends_its_own_way_back_and_its_first_direct_claim_fans_out(
    app: Any, factory: Factory
) -> None:
    answers, recorder, run_ids, statuses, queue = await _drain(app, factory, pending=5, direct_claims=2)
    assert answers == ["succeeded"] * 3
    assert list(statuses.values()).count("pending") == 2
    (fan_out, own) = recorder.wakes
    assert fan_out[0] == queue
    assert fan_out[2] is False, "left waiting unless one already waits"
    assert statuses[fan_out[1]] == "succeeded", "it names a run already taken"
    assert own == (queue, run_ids[0], True), (
        "pushed even if one waits: every process ending a batch needs one"
    )


async def test_a_stopping_worker_leaves_a_wake_up_for_the_others(app: Any, factory: Factory) -> None:
    answers, recorder, run_ids, statuses, queue = await _drain(
        app, factory, pending=4, direct_claims=8, stopping=True
    )
    assert answers == ["succeeded"], "the run it held is finished, nothing more is taken"
    assert [statuses[run_id] for run_id in run_ids[1:]] == ["pending"] * 3
    assert recorder.wakes == [(queue, run_ids[0], False)]


async def test_a_drain_that_empties_its_queue_leaves_nothing(app: Any, factory: Factory) -> None:
    answers, recorder, _, statuses, _ = await _drain(app, factory, pending=2, direct_claims=8)
    assert answers == ["succeeded", "succeeded"]
    assert set(statuses.values()) == {"succeeded"}
    assert recorder.wakes == [], "no other run was pending when it claimed the last one, and none after"
