"""Durable waits end to end on a real worker and beat: a run that waits holds no worker, resumes by
itself, survives a killed worker and a cancel, and never repeats a step that succeeded."""

from __future__ import annotations

import uuid
from typing import Any

import psutil
from sqlalchemy import select

from app.persistence.models import Run, RunWait
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.runs import attempts, definition, get_run, http_step, start, wait_for

WAITING = {"waiting"}


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def wait_step(step_id: str, **config: Any) -> dict[str, Any]:
    return {"step_id": step_id, "action": "wait", "config": config}


async def waits_of(app: Any, run_id: str) -> list[RunWait]:
    async with app.state.sessionmaker() as session:
        return list((await session.scalars(select(RunWait).where(RunWait.run_id == uuid.UUID(run_id)))).all())


async def _kill_worker_children(worker: Any) -> None:
    for child in psutil.Process(worker.process.pid).children(recursive=True):
        child.kill()  # SIGKILL: no cleanup runs


async def _waiting(caller: Caller, run_id: str) -> dict[str, Any]:
    return await wait_for(caller, run_id, WAITING, timeout=60)


class TestWait:
    async def test_a_short_wait_resumes_by_itself_and_the_next_step_runs_once(
        self, app: Any, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        before, after = _name("before"), _name("after")
        _, run = await start(
            owner,
            definition(
                http_step("before", f"{loopback.url}/count/{before}"),
                wait_step("pause", **{"for": "PT2S"}),
                http_step("after", f"{loopback.url}/count/{after}"),
                execution={"timeout_seconds": 600},
            ),
        )
        waiting = await _waiting(owner, run["id"])
        assert waiting["status"] == "waiting"
        assert loopback.hits[after] == 0
        [row] = await waits_of(app, run["id"])
        assert (row.kind, row.path, row.satisfied_at) == ("time", "pause", None)
        done = await wait_for(owner, run["id"], timeout=60)
        assert done["status"] == "succeeded", done
        assert loopback.hits[before] == 1
        assert loopback.hits[after] == 1
        [pause] = attempts(done, "pause")
        assert pause["status"] == "succeeded"
        assert pause["output"]["waited_until"] == row.due_at.isoformat()
        [row] = await waits_of(app, run["id"])
        assert row.outcome == {"due": True}

    async def test_a_waiting_run_is_cancelled_at_once_and_its_next_step_never_runs(
        self, app: Any, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        after = _name("after-cancel")
        _, run = await start(
            owner,
            definition(
                wait_step("pause", **{"for": "P1D"}), http_step("after", f"{loopback.url}/count/{after}")
            ),
        )
        await _waiting(owner, run["id"])
        response = await owner.request("POST", owner.space_path(f"/runs/{run['id']}/cancel"))
        assert response.status_code == 200, response.text
        assert response.json()["status"] == "cancelled"
        [row] = await waits_of(app, run["id"])
        assert row.outcome == {"closed": True}, "a cancelled run's open wait is closed"
        assert (await get_run(owner, run["id"]))["status"] == "cancelled"
        assert loopback.hits[after] == 0

    async def test_a_worker_killed_during_a_wait_loses_nothing_and_repeats_nothing(
        self, app: Any, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        worker, _beat = stack
        owner = await factory.owner()
        before, after = _name("before-kill"), _name("after-kill")
        _, run = await start(
            owner,
            definition(
                http_step("before", f"{loopback.url}/count/{before}"),
                wait_step("pause", **{"for": "PT3S"}),
                http_step("after", f"{loopback.url}/count/{after}"),
            ),
        )
        await _waiting(owner, run["id"])
        await _kill_worker_children(worker)
        done = await wait_for(owner, run["id"], timeout=90)
        assert done["status"] == "succeeded", done
        assert loopback.hits[before] == 1, "a succeeded step is never executed again"
        assert loopback.hits[after] == 1
        assert len(await waits_of(app, run["id"])) == 1

    async def test_a_wait_past_the_maximum_fails_the_step(
        self, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        after = _name("after-long")
        _, run = await start(
            owner,
            definition(
                wait_step("pause", **{"for": "{{ inputs.length }}"}),
                http_step("after", f"{loopback.url}/count/{after}"),
            ),
            {"length": "P31D"},
        )
        done = await wait_for(owner, run["id"], timeout=60)
        assert done["status"] == "failed"
        assert done["error"]["code"] == "wait_too_long", done["error"]
        assert loopback.hits[after] == 0

    async def test_waiting_time_does_not_count_against_the_run_timeout(
        self, app: Any, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        _, run = await start(
            owner,
            definition(wait_step("pause", **{"for": "PT3S"}), execution={"timeout_seconds": 600}),
        )
        await _waiting(owner, run["id"])
        async with app.state.sessionmaker() as session:
            waiting = await session.get(Run, uuid.UUID(run["id"]))
        assert waiting is not None
        assert waiting.deadline_at is not None
        deadline_while_waiting = waiting.deadline_at
        done = await wait_for(owner, run["id"], timeout=60)
        assert done["status"] == "succeeded", done
        async with app.state.sessionmaker() as session:
            finished = await session.get(Run, uuid.UUID(run["id"]))
        assert finished is not None
        assert finished.deadline_at is not None
        # Moved later by the time waited (at least the 3 s of the wait).
        assert (finished.deadline_at - deadline_while_waiting).total_seconds() >= 2.5

    async def test_a_time_already_past_goes_on_at_once(self, app: Any, factory: Factory, stack: Any) -> None:
        owner = await factory.owner()
        _, run = await start(
            owner,
            definition(wait_step("pause", until="{{ inputs.at }}"), execution={"timeout_seconds": 60}),
            {"at": "2020-01-01T00:00:00Z"},
        )
        done = await wait_for(owner, run["id"], timeout=60)
        assert done["status"] == "succeeded", done
        [pause] = attempts(done, "pause")
        assert pause["output"] == {"waited_until": "2020-01-01T00:00:00+00:00"}
        [row] = await waits_of(app, run["id"])
        assert row.outcome == {"due": True}

    async def test_a_bad_duration_fails_the_step_for_good(self, factory: Factory, stack: Any) -> None:
        owner = await factory.owner()
        _, run = await start(
            owner, definition(wait_step("pause", **{"for": "{{ inputs.length }}"})), {"length": "soon"}
        )
        done = await wait_for(owner, run["id"], timeout=60)
        assert done["status"] == "failed"
        assert done["error"]["code"] == "invalid_duration", done["error"]
        assert len(attempts(done, "pause")) == 1, "not retried"
