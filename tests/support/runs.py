"""Helpers for run tests: automations built around a loopback server, runs stored directly, and waiting
for a run's end."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from app.definitions import run_states
from app.persistence.models import Run
from app.persistence.transaction import transaction
from tests.support.factories import Caller

TERMINAL = {status.value for status in run_states.TERMINAL}
# The queue of the runs a test stores and claims itself. No worker consumes it, so a drain of the
# session's worker (direct claims take any pending run of a queue it consumes) never takes them first.
STORED_RUNS_QUEUE = "tests.stored"
# An automation that listens for every run's terminal event (`automation.run.*`) in its space.
RUN_EVENT_LISTENER: dict[str, Any] = {
    "schema_version": "1.0",
    "name": "Listens",
    "triggers": [{"type": "event", "config": {"event_type": "automation.run.*"}}],
    "plan": [{"step_id": "seen", "action": "transform_data", "config": {"output": 1}}],
}


def private_queue() -> str:
    """A run queue of one test's own, for a test that claims the next pending run of a queue: no worker
    consumes it and no other test stores runs on it."""
    return f"tests.{uuid.uuid4().hex[:12]}"


def http_step(step_id: str, url: str, **extra: Any) -> dict[str, Any]:
    return {"step_id": step_id, "action": "http_request", "config": {"method": "POST", "url": url}, **extra}


def definition(*steps: dict[str, Any], **changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = {"schema_version": "1.0", "name": "Pipeline test", "plan": list(steps)}
    document.update(changes)
    return document


def run_row(
    owner: Caller, automation: dict[str, Any], status: str = "pending", **columns: Any
) -> dict[str, Any]:
    """The columns of a manual run of `automation` (as the API answered it) in the owner's space, in
    `status` on `STORED_RUNS_QUEUE`, with `columns` set."""
    values: dict[str, Any] = {
        "id": uuid.uuid4(),
        "space_id": uuid.UUID(owner.space_id),
        "automation_id": uuid.UUID(automation["id"]),
        "automation_version": 1,
        "definition": automation["definition"],
        "status": status,
        "queue": STORED_RUNS_QUEUE,
        "trigger_type": "manual",
        "trigger_payload": {},
        "inputs": {},
    }
    return values | columns


# What `waiting_mix` holds that a worker of each run queue could claim now.
CLAIMABLE_IN_MIX = {"runs.fast": 2, "runs.medium": 1, "runs.long": 0}


def waiting_mix(owner: Caller, automation: dict[str, Any], now: datetime) -> list[dict[str, Any]]:
    """Rows of runs in every state a count of claimable runs must tell apart (`CLAIMABLE_IN_MIX`): due
    pending runs, one backing off until after `now`, queued, running and finished ones, another queue's."""
    due, later, past = None, now + timedelta(hours=1), now - timedelta(minutes=1)
    # The same columns in every row: an INSERT of many rows takes its columns from the first.
    mix = [
        ("runs.fast", "pending", due),
        ("runs.fast", "pending", past),
        ("runs.fast", "pending", later),
        ("runs.fast", "queued", due),
        ("runs.fast", "running", due),
        ("runs.fast", "succeeded", due),
        ("runs.medium", "pending", due),
    ]
    return [
        run_row(owner, automation, status, queue=queue, retry_at=retry_at) for queue, status, retry_at in mix
    ]


async def stored_run(
    app: Any, owner: Caller, automation: dict[str, Any], status: str = "pending", **columns: Any
) -> Run:
    """A manual run of `automation` (as the API answered it) in the owner's space, stored directly in
    `status` with `columns` set, committed; no wake-up is sent, so nothing else claims it.

    A pending run whose wake-up was never sent is what beat's recovery wakes at its next tick, so the
    session's beat and worker would race the test for it: the run is stored as woken a year from now
    (`enqueued_at`), which recovery leaves alone, unless the test says otherwise."""
    woken = {"enqueued_at": datetime.now(UTC) + timedelta(days=365)}
    run = Run(**run_row(owner, automation, status, **(woken | columns)))
    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        session.add(run)
    return run


async def start(
    caller: Caller, document: dict[str, Any], inputs: dict[str, Any] | None = None
) -> tuple[str, dict[str, Any]]:
    """Create and activate an automation, then run it now; answers (automation id, run)."""
    automation = await caller.create_automation(document)
    await caller.request("POST", caller.space_path(f"/automations/{automation['id']}/activate"))
    run = await fire(caller, automation["id"], inputs)
    return automation["id"], run


async def fire(
    caller: Caller, automation_id: str, inputs: dict[str, Any] | None = None, **kwargs: Any
) -> dict[str, Any]:
    response = await caller.request(
        "POST",
        caller.space_path(f"/automations/{automation_id}/runs"),
        json={"inputs": inputs or {}},
        **kwargs,
    )
    assert response.status_code in (200, 202), response.text
    body: dict[str, Any] = response.json()
    return body


async def get_run(caller: Caller, run_id: str) -> dict[str, Any]:
    response = await caller.request("GET", caller.space_path(f"/runs/{run_id}"))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def wait_for(
    caller: Caller, run_id: str, statuses: set[str] | None = None, timeout: float = 60
) -> dict[str, Any]:
    """Poll the API until the run reaches one of `statuses` (terminal ones by default)."""
    wanted = statuses or TERMINAL
    deadline = time.monotonic() + timeout
    run = await get_run(caller, run_id)
    while run["status"] not in wanted:
        if time.monotonic() > deadline:
            raise AssertionError(f"run stayed {run['status']} for {timeout} s: {run}")
        # A short poll: most runs end within a few tenths of a second, and many tests wait on one.
        await asyncio.sleep(0.1)
        run = await get_run(caller, run_id)
    return run


def attempts(run: dict[str, Any], step_id: str) -> list[dict[str, Any]]:
    return [step for step in run["steps"] if step["step_id"] == step_id]
