"""Execution policy: concurrency, retries and backoff, step and run timeouts, on_failure, cancellation."""

from __future__ import annotations

import uuid
from datetime import datetime

from tests.support.factories import Factory
from tests.support.loopback import Loopback
from tests.support.runs import TERMINAL, attempts, definition, fire, get_run, http_step, start, wait_for


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def _slow(loopback: Loopback, name: str, seconds: float) -> dict:
    return http_step("slow", f"{loopback.url}/slow/{name}?seconds={seconds}")


class TestConcurrency:
    async def test_drop_if_running_drops_with_a_reason(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = _name("drop")
        automation_id, first = await start(
            owner, definition(_slow(loopback, name, 2), execution={"concurrency": "drop_if_running"})
        )
        second = await fire(owner, automation_id)
        assert second["status"] == "dropped"
        assert second["reason"] == "already_running"
        assert (await wait_for(owner, first["id"]))["status"] == "succeeded"
        assert loopback.hits[name] == 1

    async def test_queue_runs_one_after_another(self, factory: Factory, loopback: Loopback, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = _name("queue")
        automation_id, first = await start(
            owner, definition(_slow(loopback, name, 1.5), execution={"concurrency": "queue"})
        )
        second = await fire(owner, automation_id)
        third = await fire(owner, automation_id)
        assert (second["status"], third["status"]) == ("queued", "queued")
        queue = (await owner.request("GET", owner.space_path("/queue"))).json()["items"]
        assert [r["id"] for r in queue] == [second["id"], third["id"]]
        runs = [await wait_for(owner, r["id"]) for r in (first, second, third)]
        assert [r["status"] for r in runs] == ["succeeded"] * 3
        spans = [
            (datetime.fromisoformat(r["started_at"]), datetime.fromisoformat(r["finished_at"])) for r in runs
        ]
        assert spans[0][1] <= spans[1][0], "never two at once, in arrival order"
        assert spans[1][1] <= spans[2][0], "never two at once, in arrival order"

    async def test_allow_parallel_overlaps(self, factory: Factory, loopback: Loopback, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = _name("parallel")
        automation_id, first = await start(
            owner, definition(_slow(loopback, name, 1.5), execution={"concurrency": "allow_parallel"})
        )
        second = await fire(owner, automation_id)
        assert second["status"] == "pending"
        a, b = await wait_for(owner, first["id"]), await wait_for(owner, second["id"])
        assert (a["status"], b["status"]) == ("succeeded", "succeeded")
        assert datetime.fromisoformat(b["started_at"]) < datetime.fromisoformat(a["finished_at"])


class TestRetries:
    async def test_no_backoff_retries_at_once_until_success(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = _name("retry-none")
        _, run = await start(
            owner,
            definition(
                http_step("flaky", f"{loopback.url}/fail/{name}?times=2"),
                execution={"max_retries": 2, "retry_backoff": "none"},
            ),
        )
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded"
        assert [s["status"] for s in attempts(done, "flaky")] == ["failed", "failed", "succeeded"]
        assert [s["attempt"] for s in attempts(done, "flaky")] == [1, 2, 3]
        assert loopback.hits[name] == 3

    async def test_retries_exhausted_fail_the_run(self, factory: Factory, loopback: Loopback, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = _name("retry-out")
        step = {**http_step("flaky", f"{loopback.url}/fail/{name}?times=9"), "max_retries": 1}
        _, run = await start(owner, definition(step, execution={"retry_backoff": "none"}))
        done = await wait_for(owner, run["id"])
        assert done["status"] == "failed"
        assert len(attempts(done, "flaky")) == 2
        assert loopback.hits[name] == 2

    async def test_linear_backoff_waits_between_attempts(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = _name("retry-linear")
        _, run = await start(
            owner,
            definition(
                http_step("flaky", f"{loopback.url}/fail/{name}?times=1"),
                execution={"max_retries": 1, "retry_backoff": "linear"},
            ),
        )
        done = await wait_for(owner, run["id"])
        first, second = attempts(done, "flaky")
        gap = datetime.fromisoformat(second["started_at"]) - datetime.fromisoformat(first["finished_at"])
        assert 1.5 <= gap.total_seconds() <= 6, gap  # 2 s ± 20 % jitter, plus scheduling slack

    async def test_long_exponential_backoff_goes_back_through_the_broker(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = _name("retry-exp")
        _, run = await start(
            owner,
            definition(
                http_step("flaky", f"{loopback.url}/fail/{name}?times=3"),
                execution={"max_retries": 3, "retry_backoff": "exponential"},
            ),
        )
        # The third wait (8 s ± 20 %) is longer than a worker sleeps: the run goes back to pending.
        await wait_for(owner, run["id"], {"running"}, timeout=30)
        waiting = await wait_for(owner, run["id"], {"pending", *TERMINAL}, timeout=30)
        assert waiting["status"] == "pending"
        assert waiting["retry_at"] is not None
        assert len(attempts(waiting, "flaky")) == 3
        done = await wait_for(owner, run["id"], timeout=40)
        assert done["status"] == "succeeded"
        assert [s["attempt"] for s in attempts(done, "flaky")] == [1, 2, 3, 4]
        assert done["attempt"] == 2, "a second claim picked the run up after the broker's wake-up"


class TestTimeouts:
    async def test_step_timeout_fails_the_step(self, factory: Factory, loopback: Loopback, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        step = {**_slow(loopback, _name("step-timeout"), 3), "timeout_seconds": 1}
        _, run = await start(owner, definition(step))
        done = await wait_for(owner, run["id"])
        assert done["status"] == "failed"
        assert attempts(done, "slow")[0]["error"]["code"] == "step_timeout"

    async def test_run_timeout_is_timed_out(self, factory: Factory, loopback: Loopback, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        _, run = await start(
            owner, definition(_slow(loopback, _name("run-timeout"), 5), execution={"timeout_seconds": 1})
        )
        done = await wait_for(owner, run["id"])
        assert done["status"] == "timed_out"
        assert done["error"]["code"] == "run_timeout"


class TestOnFailure:
    async def test_on_failure_steps_see_the_error(self, factory: Factory, loopback: Loopback, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = _name("on-failure")
        document = definition(
            http_step("broken", f"{loopback.url}/status/500/{name}"),
            {"step_id": "never", "action": "transform_data", "config": {"output": 1}},
            execution={
                "on_failure": [
                    {
                        "step_id": "alert",
                        "action": "notification",
                        "config": {
                            "title": "{{ run.failed_step_id }} failed",
                            "body": "{{ run.error.message }}",
                            "level": "error",
                        },
                    }
                ]
            },
        )
        _, run = await start(owner, document)
        done = await wait_for(owner, run["id"])
        assert done["status"] == "failed"
        assert done["failed_step_id"] == "broken"
        assert [(s["phase"], s["step_id"], s["status"]) for s in done["steps"]] == [
            ("plan", "broken", "failed"),
            ("on_failure", "alert", "succeeded"),
        ]
        inbox = (await owner.request("GET", owner.space_path("/notifications"))).json()["items"]
        assert inbox[0]["title"] == "broken failed"
        assert "500" in inbox[0]["body"]

    async def test_a_run_out_of_time_runs_on_failure_and_ends_timed_out(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        # A 4 s run keeps 2 s for on_failure (the 5 s floor, capped at half the run); the plan's
        # step would take 30 s, so the plan runs out after 2 s and the alert runs in the reserve.
        document = definition(
            _slow(loopback, _name("late"), 30),
            {"step_id": "never", "action": "transform_data", "config": {"output": 1}},
            execution={
                "timeout_seconds": 4,
                "on_failure": [
                    {
                        "step_id": "alert",
                        "action": "notification",
                        "config": {
                            "title": "{{ run.failed_step_id }}: {{ run.error.code }}",
                            "body": "{{ run.error.message }}",
                            "level": "error",
                        },
                    }
                ],
            },
        )
        _, run = await start(owner, document)
        done = await wait_for(owner, run["id"])
        assert done["status"] == "timed_out"
        assert done["error"]["code"] == "run_timeout"
        assert done["failed_step_id"] == "slow"
        assert [(s["phase"], s["step_id"], s["status"]) for s in done["steps"]] == [
            ("plan", "slow", "failed"),
            ("on_failure", "alert", "succeeded"),
        ]
        assert attempts(done, "slow")[0]["error"]["code"] == "run_timeout"
        inbox = (await owner.request("GET", owner.space_path("/notifications"))).json()["items"]
        assert inbox[0]["title"] == "slow: run_timeout"


class TestCancel:
    async def test_cancel_queued_run(self, factory: Factory, loopback: Loopback, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = _name("cq")
        automation_id, first = await start(
            owner, definition(_slow(loopback, name, 1), execution={"concurrency": "queue"})
        )
        queued = await fire(owner, automation_id)
        cancelled = await owner.request("POST", owner.space_path(f"/runs/{queued['id']}/cancel"))
        assert cancelled.status_code == 200
        assert cancelled.json()["status"] == "cancelled"
        later = await fire(owner, automation_id)
        assert later["status"] == "queued"
        await wait_for(owner, first["id"])
        # Promotion is oldest first: once the later run has finished, the promoter has passed the
        # cancelled one by.
        assert (await wait_for(owner, later["id"]))["status"] == "succeeded"
        assert (await get_run(owner, queued["id"]))["steps"] == [], "a cancelled run never starts"
        assert loopback.hits[name] == 2, "the first run and the later one, not the cancelled one"

    async def test_cancel_running_run_stops_at_the_next_step(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        after = _name("after-cancel")
        _, run = await start(
            owner,
            definition(_slow(loopback, _name("cr"), 2), http_step("after", f"{loopback.url}/count/{after}")),
        )
        await wait_for(owner, run["id"], {"running"})
        response = await owner.request("POST", owner.space_path(f"/runs/{run['id']}/cancel"))
        assert response.json()["cancel_requested"] is True
        done = await wait_for(owner, run["id"])
        assert done["status"] == "cancelled"
        assert loopback.hits[after] == 0

    async def test_cancel_finished_run_is_409(self, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        _, run = await start(
            owner, definition({"step_id": "a", "action": "transform_data", "config": {"output": 1}})
        )
        await wait_for(owner, run["id"])
        response = await owner.request("POST", owner.space_path(f"/runs/{run['id']}/cancel"))
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "run_finished"
