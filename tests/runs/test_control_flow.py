"""Plans with `if` and `for_each` through the real service: a worker process, the database, the broker.

Side effects are counted by a loopback HTTP server (one name per step and item), so "never ran again"
is checked where it matters: at the receiving end.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import psutil
from sqlalchemy import update

from app.persistence.base import utcnow
from app.persistence.models import Run, RunWait
from app.persistence.transaction import transaction
from tests.support.approvals import decide, pending_approvals, set_modes
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.runs import definition, fire, get_run, http_step, start, wait_for


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def loop(step_id: str, items: Any, steps: list[Any], **options: Any) -> dict[str, Any]:
    return {"step_id": step_id, "for_each": {"items": items, "steps": steps, **options}, "output_as": step_id}


def last_at(run: dict[str, Any], path: str) -> dict[str, Any]:
    """The run's last record at `path`."""
    return [step for step in run["steps"] if step["path"] == path][-1]


async def steps_at(caller: Caller, run_id: str, path: str) -> Any:
    return await caller.request("GET", caller.space_path(f"/runs/{run_id}/steps/{path}"))


async def until(check: Any, timeout: float = 60) -> Any:
    """Poll an async check until it answers something truthy."""
    for _ in range(int(timeout / 0.1)):
        found = await check()
        if found:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError("condition not reached in time")


class TestBranchesAndLoops:
    async def test_if_and_a_concurrent_loop_run_with_outputs_in_order_and_addressable_records(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hit = _name("hit")
        document = definition(
            loop(
                "fan",
                "{{ inputs.items }}",
                [
                    {
                        "step_id": "size",
                        "if": {
                            "condition": {"item": {"gte": 5}},
                            "then": [http_step("big", f"{loopback.url}/count/{hit}-big-{{{{ item }}}}")],
                            "else": [
                                {
                                    "step_id": "small",
                                    "action": "transform_data",
                                    "config": {"output": {"small": "{{ item }}"}},
                                }
                            ],
                        },
                    }
                ],
                concurrency=3,
            ),
            {"step_id": "total", "action": "transform_data", "config": {"output": "{{ fan | length }}"}},
            inputs={"schema": {"type": "object", "properties": {"items": {"type": "array"}}}},
        )
        items = [1, 7, 2, 9, 5, 3, 8, 4, 6, 0]
        _, run = await start(owner, document, {"items": items})
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        outputs = last_at(done, "fan")["output"]
        for item, output in zip(items, outputs, strict=True):
            if item >= 5:
                assert output["json"]["name"] == f"{hit}-big-{item}"
            else:
                assert output == {"small": item}
        assert [loopback.hits[f"{hit}-big-{item}"] for item in items] == [int(i >= 5) for i in items]

        decision = await steps_at(owner, run["id"], "fan/1/size")
        assert decision.status_code == 200, decision.text
        assert [(s["path"], s["action"], s["output"]) for s in decision.json()] == [
            ("fan/1/size", "if", {"branch": "then"})
        ]
        iteration = (await steps_at(owner, run["id"], "fan/0")).json()
        assert [s["path"] for s in iteration] == ["fan/0/size", "fan/0/small"]
        assert len((await steps_at(owner, run["id"], "fan")).json()) == 1 + 2 * len(items)

        missing = await steps_at(owner, run["id"], "fan/99")
        assert (missing.status_code, missing.json()["error"]["code"]) == (404, "step_not_found")
        bad = await steps_at(owner, run["id"], "fan/x/../y")
        assert bad.status_code == 422, bad.text

        # A replay runs the same tree again, as a new run with its own records.
        replay = await owner.request("POST", owner.space_path(f"/runs/{run['id']}/replay"))
        assert replay.status_code == 202, replay.text
        again = await wait_for(owner, replay.json()["id"])
        assert again["status"] == "succeeded", again
        replayed = last_at(again, "fan")["output"]
        assert [o.get("small", o.get("json", {}).get("name")) for o in replayed] == [
            o.get("small", o.get("json", {}).get("name")) for o in outputs
        ]
        assert [loopback.hits[f"{hit}-big-{item}"] for item in items] == [2 * int(i >= 5) for i in items]

    async def test_bad_items_fail_the_run_at_the_loop(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hit = _name("never")
        _, run = await start(
            owner,
            definition(loop("fan", "{{ run.id }}", [http_step("call", f"{loopback.url}/count/{hit}")])),
        )
        done = await wait_for(owner, run["id"])
        assert (done["status"], done["failed_step_id"]) == ("failed", "fan")
        assert done["error"]["code"] == "items_not_a_list"
        assert loopback.hits[hit] == 0

    async def test_a_cancel_during_a_loop_stops_it_and_starts_no_more_iterations(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        slow = _name("slow")
        _, run = await start(
            owner,
            definition(
                loop(
                    "fan",
                    list(range(6)),
                    [http_step("call", f"{loopback.url}/slow/{slow}-{{{{ item }}}}?seconds=1")],
                    concurrency=2,
                )
            ),
        )
        await until(lambda: _hit(loopback, f"{slow}-0"))
        cancel = await owner.request("POST", owner.space_path(f"/runs/{run['id']}/cancel"))
        assert cancel.status_code == 200, cancel.text
        done = await wait_for(owner, run["id"])
        assert done["status"] == "cancelled", done
        ran = [i for i in range(6) if loopback.hits[f"{slow}-{i}"]]
        assert len(ran) < 6, "the cancel stopped the loop before its end"
        loop_record = last_at(done, "fan")
        assert (loop_record["status"], loop_record["error"]["code"]) == ("failed", "loop_stopped")


async def _hit(loopback: Loopback, name: str) -> bool:
    return loopback.hits[name] > 0


class TestPausesAndCrashes:
    async def test_a_loop_resumed_after_a_wait_goes_on_over_the_list_it_began_with(
        self, app: Any, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hit = _name("kept")
        document = definition(
            loop(
                "fan",
                "{{ inputs.items }}",
                [
                    http_step("call", f"{loopback.url}/count/{hit}-{{{{ item }}}}"),
                    # The first iteration waits until the test moves its due time; the others briefly.
                    {
                        "step_id": "pause",
                        "action": "wait",
                        "config": {"for": "{{ 'P1D' if index == 0 else 'PT0.5S' }}"},
                    },
                    {"step_id": "echo", "action": "transform_data", "config": {"output": "{{ item }}"}},
                ],
            ),
            inputs={"schema": {"type": "object", "properties": {"items": {"type": "array"}}}},
            execution={"timeout_seconds": 600},
        )
        _, run = await start(owner, document, {"items": ["a", "b", "c"]})
        await wait_for(owner, run["id"], {"waiting"})
        run_id = uuid.UUID(run["id"])
        # What `items` reads changes while the run waits; then the wait is made due.
        async with transaction(app.state.sessionmaker, lambda job: None) as session:
            await session.execute(
                update(Run).where(Run.id == run_id).values(inputs={"items": ["z", "c", "b", "a", "y"]})
            )
            await session.execute(update(RunWait).where(RunWait.run_id == run_id).values(due_at=utcnow()))
        done = await wait_for(owner, run["id"], timeout=90)
        assert done["status"] == "succeeded", done
        assert done["attempt"] >= 2
        assert last_at(done, "fan")["output"] == ["a", "b", "c"]
        assert [loopback.hits[f"{hit}-{item}"] for item in "abc"] == [1, 1, 1]
        assert [loopback.hits[f"{hit}-{item}"] for item in "zy"] == [0, 0]
        assert sorted(s["path"] for s in done["steps"] if s["step_id"] == "echo") == [
            "fan/0/echo",
            "fan/1/echo",
            "fan/2/echo",
        ]

    async def test_an_approval_inside_iterations_suspends_and_each_call_resumes_once(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        hit = _name("ask")
        automation = await owner.create_automation(
            definition(
                loop(
                    "fan",
                    [1, 2],
                    [http_step("call", f"{loopback.url}/count/{hit}-{{{{ item }}}}")],
                    concurrency=2,
                )
            )
        )
        await set_modes(owner, {"http.request": "require_approval"}, automation["id"])
        await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
        run = await fire(owner, automation["id"])
        waiting = await wait_for(owner, run["id"], {"awaiting_approval"})
        paused = sorted((s["path"], s["status"]) for s in waiting["steps"])
        assert paused == [("fan", "suspended"), ("fan/0/call", "suspended"), ("fan/1/call", "suspended")]
        approvals = await pending_approvals(owner, run_id=run["id"])
        assert len(approvals) == 2, "one call per iteration, told apart by path"

        # The run goes on once no call of it waits for a decision any more.
        for approval in approvals:
            answer = await decide(owner, approval["id"], "approve", {"scope": "once"})
            assert answer.status_code == 200, answer.text
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        assert (loopback.hits[f"{hit}-1"], loopback.hits[f"{hit}-2"]) == (1, 1)
        assert sorted(i["status"] for i in done["invocations"]) == ["executed", "executed"]

    async def test_a_worker_killed_mid_loop_resumes_without_running_done_steps_again(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        worker, _beat = stack
        owner = await factory.owner()
        ping, work = _name("ping"), _name("work")
        items = list(range(6))
        _, run = await start(
            owner,
            definition(
                loop(
                    "fan",
                    items,
                    [
                        http_step("ping", f"{loopback.url}/count/{ping}-{{{{ item }}}}"),
                        http_step(
                            "work",
                            f"{loopback.url}/slow/{work}-{{{{ item }}}}"
                            "?seconds={{ 4 if item == 4 and run.attempt == 1 else 0 }}",
                        ),
                    ],
                    concurrency=3,
                )
            ),
        )
        await until(lambda: _hit(loopback, f"{work}-4"))
        # What the records said when the worker died: those steps must never run again.
        before = await get_run(owner, run["id"])
        recorded = {s["path"] for s in before["steps"] if s["status"] == "succeeded"}
        for child in psutil.Process(worker.process.pid).children(recursive=True):
            child.kill()  # SIGKILL: no cleanup runs in the child
        done = await wait_for(owner, run["id"], timeout=90)
        assert done["status"] == "succeeded", done
        assert done["attempt"] >= 2
        assert {f"fan/{i}/ping" for i in (0, 1, 2)} <= recorded, "the first iterations were done before"
        for path in recorded - {"fan"}:
            _, index, step = path.split("/")
            name = f"{ping if step == 'ping' else work}-{index}"
            assert loopback.hits[name] == 1, f"{path} succeeded before the crash and ran again"
        assert loopback.hits[f"{work}-4"] >= 2, "the interrupted step ran again"
        output = last_at(done, "fan")["output"]
        assert [o["json"]["name"] for o in output] == [f"{work}-{i}" for i in items]
        interrupted = next(s for s in done["steps"] if s["path"] == "fan/4/work")
        assert interrupted["error"]["code"] == "interrupted"
