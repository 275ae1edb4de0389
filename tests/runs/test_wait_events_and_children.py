"""Waiting for an event and for a child run, end to end on a real worker and beat: a matching event
wakes each waiting run once, a timeout fails or continues, a child's end resumes its parent, and a
cycle of calls is refused at save."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import psutil
from sqlalchemy import select

from app.persistence.models import Run, RunWait
from app.persistence.transaction import transaction
from app.services.runs.waking import waker
from app.services.triggers.events import event_service
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.runs import attempts, definition, fire, http_step, start, wait_for

WAITING = {"waiting"}


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def event_wait(step_id: str, output_as: str | None = None, **config: Any) -> dict[str, Any]:
    step: dict[str, Any] = {"step_id": step_id, "action": "wait_for_event", "config": config}
    if output_as:
        step["output_as"] = output_as
    return step


def call(step_id: str, automation_id: str, output_as: str | None = None, **config: Any) -> dict[str, Any]:
    step: dict[str, Any] = {
        "step_id": step_id,
        "action": "call_automation",
        "config": {"automation": automation_id, **config},
    }
    if output_as:
        step["output_as"] = output_as
    return step


def echo(step_id: str, output: Any, output_as: str | None = None) -> dict[str, Any]:
    step: dict[str, Any] = {"step_id": step_id, "action": "transform_data", "config": {"output": output}}
    if output_as:
        step["output_as"] = output_as
    return step


async def _publish(owner: Caller, event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    response = await owner.request(
        "POST", owner.space_path("/events"), json={"event_type": event_type, "payload": payload}
    )
    assert response.status_code == 202, response.text
    body: dict[str, Any] = response.json()
    return body


async def _dispatched(owner: Caller, event_id: str) -> dict[str, Any]:
    for _ in range(300):
        event: dict[str, Any] = (await owner.request("GET", owner.space_path(f"/events/{event_id}"))).json()
        if event["dispatched_at"]:
            return event
        await asyncio.sleep(0.2)
    raise AssertionError(f"event {event_id} was not dispatched")


async def _active(owner: Caller, document: dict[str, Any]) -> str:
    automation = await owner.create_automation(document)
    await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
    return str(automation["id"])


async def _children(owner: Caller, run_id: str) -> list[dict[str, Any]]:
    response = await owner.request("GET", owner.space_path("/runs"), params={"parent_run_id": run_id})
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items


class TestWaitForEvent:
    async def test_a_matching_event_wakes_the_run_and_a_non_matching_one_does_not(
        self, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        _, run = await start(
            owner,
            definition(
                event_wait(
                    "paid",
                    "paid",
                    event_type="order.paid",
                    filter={"order_id": "{{ inputs.order }}"},
                    timeout="PT5M",
                ),
                echo("amount", "{{ paid.amount }}", "amount"),
            ),
            {"order": "A1"},
        )
        await wait_for(owner, run["id"], WAITING)
        other = await _dispatched(
            owner, (await _publish(owner, "order.paid", {"order_id": "B2", "amount": 1}))["id"]
        )
        assert other["dispatched_at"]
        assert (await wait_for(owner, run["id"], WAITING))["status"] == "waiting", (
            "another order wakes nothing"
        )
        await _publish(owner, "order.paid", {"order_id": "A1", "amount": 42})
        done = await wait_for(owner, run["id"], timeout=60)
        assert done["status"] == "succeeded", done
        assert done["output"]["paid"] == {"order_id": "A1", "amount": 42}
        assert done["output"]["amount"] == 42

    async def test_an_event_published_before_the_wait_does_not_count(
        self, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        early = await _dispatched(owner, (await _publish(owner, "early.bird", {"n": 1}))["id"])
        assert early["dispatched_at"]
        _, run = await start(
            owner,
            definition(event_wait("later", event_type="early.bird", timeout="PT2S", on_timeout="continue")),
        )
        done = await wait_for(owner, run["id"], timeout=60)
        assert done["status"] == "succeeded", done
        [step] = attempts(done, "later")
        assert step["output"] == {"timed_out": True}

    async def test_a_timeout_fails_the_step_or_continues(self, factory: Factory, stack: Any) -> None:
        owner = await factory.owner()
        _, failing = await start(
            owner, definition(event_wait("never", event_type="never.comes", timeout="PT1S"))
        )
        _, going_on = await start(
            owner,
            definition(
                event_wait("never", "seen", event_type="never.comes", timeout="PT1S", on_timeout="continue"),
                echo("after", "{{ seen.timed_out }}", "after"),
            ),
        )
        failed = await wait_for(owner, failing["id"], timeout=60)
        assert failed["status"] == "failed"
        assert failed["error"]["code"] == "wait_timeout", failed["error"]
        continued = await wait_for(owner, going_on["id"], timeout=60)
        assert continued["status"] == "succeeded", continued
        assert continued["output"]["after"] is True

    async def test_one_event_wakes_each_waiting_run_once_under_racing_dispatchers(
        self, app: Any, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        name = _name("raced")
        automation_id, first = await start(
            owner,
            definition(
                event_wait("go", event_type="race.go", timeout="PT5M"),
                http_step("after", f"{loopback.url}/count/{name}"),
            ),
        )
        runs = [first, *[await fire(owner, automation_id) for _ in range(3)]]
        for run in runs:
            await wait_for(owner, run["id"], WAITING)
        # Two events, published without their dispatch wake-ups: the dispatchers here race for them.
        async with transaction(app.state.sessionmaker, lambda job: None) as session:
            events = [
                await event_service.publish(session, uuid.UUID(owner.space_id), "race.go", {"n": n}, "test")
                for n in range(2)
            ]

        async def dispatch(event_id: uuid.UUID) -> int:
            async with transaction(app.state.sessionmaker, app.state.send_job) as session:
                report = await event_service.dispatch(
                    session, event_id, limits=app.state.limits, max_chain_depth=10, waits=waker
                )
            return report.woken if report is not None else 0

        woken = await asyncio.gather(*(dispatch(event.id) for event in events for _ in range(2)))
        assert sum(woken) == len(runs), "each waiting run is woken by exactly one event, once"
        for run in runs:
            done = await wait_for(owner, run["id"], timeout=60)
            assert done["status"] == "succeeded", done
        assert loopback.hits[name] == len(runs), "every run went on exactly once"
        async with app.state.sessionmaker() as session:
            rows = (
                await session.scalars(
                    select(RunWait).where(RunWait.run_id.in_([uuid.UUID(r["id"]) for r in runs]))
                )
            ).all()
        assert len(rows) == len(runs)
        assert {row.outcome["event_id"] for row in rows} <= {str(event.id) for event in events}


class TestCallAutomation:
    async def test_a_child_run_answers_its_output_to_the_waiting_parent(
        self, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        child_id = await _active(
            owner, definition(echo("double", "{{ inputs.word ~ inputs.word }}", "doubled"))
        )
        _, run = await start(
            owner,
            definition(call("child", child_id, "answer", inputs={"word": "{{ inputs.word }}"})),
            {"word": "ab"},
        )
        done = await wait_for(owner, run["id"], timeout=90)
        assert done["status"] == "succeeded", done
        assert done["output"]["answer"] == {"doubled": "abab"}
        [child] = await _children(owner, run["id"])
        assert child["parent_run_id"] == run["id"]
        assert child["parent_path"] == "child"
        assert child["depth"] == 1
        assert child["trigger_type"] == "parent"
        assert child["status"] == "succeeded"

    async def test_without_wait_the_step_answers_the_child_run_at_once(
        self, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        child_id = await _active(owner, definition(echo("one", 1)))
        _, run = await start(owner, definition(call("child", child_id, "started", wait=False)))
        done = await wait_for(owner, run["id"], timeout=60)
        assert done["status"] == "succeeded", done
        [child] = await _children(owner, run["id"])
        assert done["output"]["started"] == {"run_id": child["id"]}

    async def test_a_failed_child_fails_the_parent_step(self, factory: Factory, stack: Any) -> None:
        owner = await factory.owner()
        child_id = await _active(owner, definition(echo("broken", "{{ inputs.missing.deeper }}")))
        _, run = await start(owner, definition(call("child", child_id)))
        done = await wait_for(owner, run["id"], timeout=90)
        assert done["status"] == "failed", done
        assert done["error"]["code"] == "child_failed", done["error"]
        assert done["error"]["details"]["status"] == "failed"

    async def test_an_automation_of_another_space_or_a_paused_one_is_refused(
        self, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        stranger = await factory.owner()
        theirs = await _active(stranger, definition(echo("one", 1)))
        paused = (await owner.create_automation(definition(echo("one", 1))))["id"]
        _, foreign = await start(owner, definition(call("child", theirs)))
        _, asleep = await start(owner, definition(call("child", paused)))
        refused = await wait_for(owner, foreign["id"], timeout=60)
        assert refused["error"]["code"] == "automation_not_found", refused["error"]
        stopped = await wait_for(owner, asleep["id"], timeout=60)
        assert stopped["error"]["code"] == "automation_paused", stopped["error"]

    async def test_a_worker_killed_while_the_child_runs_never_starts_a_second_child(
        self, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        worker, _beat = stack
        owner = await factory.owner()
        slow = _name("slow-child")
        child_id = await _active(
            owner, definition(http_step("slow", f"{loopback.url}/slow/{slow}?seconds=3"))
        )
        _, run = await start(owner, definition(call("child", child_id), echo("after", "done", "after")))
        for _ in range(300):
            if loopback.hits[slow]:
                break
            await asyncio.sleep(0.1)
        assert loopback.hits[slow] == 1
        for process in psutil.Process(worker.process.pid).children(recursive=True):
            process.kill()  # SIGKILL mid-child
        done = await wait_for(owner, run["id"], timeout=120)
        assert done["status"] == "succeeded", done
        assert done["output"]["after"] == "done"
        children = await _children(owner, run["id"])
        assert len(children) == 1, "a re-run never starts a second child"
        assert children[0]["status"] == "succeeded"

    async def test_cancelling_a_waiting_parent_cancels_its_child(
        self, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        child_id = await _active(
            owner, definition({"step_id": "pause", "action": "wait", "config": {"for": "P1D"}})
        )
        _, run = await start(owner, definition(call("child", child_id)))
        await wait_for(owner, run["id"], WAITING)
        for _ in range(300):
            children = await _children(owner, run["id"])
            if children and children[0]["status"] == "waiting":
                break
            await asyncio.sleep(0.2)
        response = await owner.request("POST", owner.space_path(f"/runs/{run['id']}/cancel"))
        assert response.json()["status"] == "cancelled"
        [child] = await _children(owner, run["id"])
        assert child["status"] == "cancelled"

    async def test_cancelling_a_running_parent_cancels_the_child_it_did_not_wait_for(
        self, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        child_id = await _active(
            owner, definition({"step_id": "pause", "action": "wait", "config": {"for": "P1D"}})
        )
        slow = _name("slow-parent")
        _, run = await start(
            owner,
            definition(
                call("child", child_id, wait=False),
                http_step("slow", f"{loopback.url}/slow/{slow}?seconds=2"),
                echo("after", "never", "after"),
            ),
        )
        for _ in range(300):
            children = await _children(owner, run["id"])
            if loopback.hits[slow] and children and children[0]["status"] == "waiting":
                break
            await asyncio.sleep(0.2)
        response = await owner.request("POST", owner.space_path(f"/runs/{run['id']}/cancel"))
        assert response.json()["status"] == "running", "a running parent is only asked to stop"
        done = await wait_for(owner, run["id"])
        assert done["status"] == "cancelled", done
        [child] = await _children(owner, run["id"])
        assert child["status"] == "cancelled", "the stop of a running parent takes its child along"

    async def test_a_chain_deeper_than_five_fails_with_depth_exceeded(
        self, factory: Factory, stack: Any
    ) -> None:
        owner = await factory.owner()
        callee = await _active(owner, definition(echo("leaf", "leaf")))
        for _ in range(6):
            callee = await _active(owner, definition(call("down", callee)))
        _, run = await start(owner, definition(call("down", callee)))
        done = await wait_for(owner, run["id"], timeout=180)
        assert done["status"] == "failed", done
        assert done["error"]["code"] == "child_failed"
        # Down the chain of children, the deepest failure says why.
        deepest = done
        while True:
            children = await _children(owner, deepest["id"])
            if not children:
                break
            deepest = children[0]
        assert deepest["depth"] == 5
        assert deepest["error"]["code"] == "depth_exceeded", deepest["error"]

    async def test_a_cycle_of_calls_is_refused_at_save(self, factory: Factory) -> None:
        owner = await factory.owner()
        first = await owner.create_automation(definition(echo("one", 1)))
        second = await owner.create_automation(definition(call("back", first["id"])))
        response = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{first['id']}"),
            json={"definition": definition(echo("one", 1), call("onward", second["id"])), "version": 1},
        )
        assert response.status_code == 422, response.text
        error = response.json()["error"]
        assert error["code"] == "automation_cycle"
        assert error["details"][0]["path"] == "/definition/plan/1/config/automation"
        assert error["details"][0]["code"] == "automation_cycle"
        itself = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{second['id']}"),
            json={"definition": definition(call("again", second["id"])), "version": 1},
        )
        assert itself.status_code == 422, itself.text
        assert itself.json()["error"]["details"][0]["path"] == "/definition/plan/0/config/automation"


class TestManyWaiting:
    async def test_a_thousand_waiting_runs_do_not_hold_up_a_normal_run(
        self, app: Any, factory: Factory, loopback: Loopback, stack: Any
    ) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation(
            definition({"step_id": "pause", "action": "wait", "config": {"for": "P1D"}})
        )
        rows: list[Run] = []
        waits: list[RunWait] = []
        space_id = uuid.UUID(owner.space_id)
        for _ in range(1000):
            run_id = uuid.uuid4()
            rows.append(
                Run(
                    id=run_id,
                    space_id=space_id,
                    automation_id=uuid.UUID(automation["id"]),
                    automation_version=1,
                    definition=automation["definition"],
                    status="waiting",
                    queue="runs.fast",
                    trigger_type="manual",
                    trigger_payload={},
                    inputs={},
                    attempt=1,
                )
            )
            waits.append(RunWait(space_id=space_id, run_id=run_id, path="pause", kind="time", due_at=None))
        async with transaction(app.state.sessionmaker, app.state.send_job) as session:
            session.add_all(rows)
            await session.flush()
            session.add_all(waits)
        name = _name("normal")
        _, run = await start(owner, definition(http_step("a", f"{loopback.url}/count/{name}"), echo("b", 2)))
        done = await wait_for(owner, run["id"], timeout=60)
        assert done["status"] == "succeeded", done
        assert loopback.hits[name] == 1
        page = await owner.request(
            "GET", owner.space_path("/runs"), params={"status": "waiting", "automation_id": automation["id"]}
        )
        assert len(page.json()["items"]) == 50
