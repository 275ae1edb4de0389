"""`if` and `for_each` blocks in the executor, with a fake journal: branches, loops, paths, resume,
pauses and stops inside iterations."""

from __future__ import annotations

import asyncio
from typing import Any

from app.definitions.signals import StepError, Suspend, Wait
from app.engine.claim_ports import Resume
from app.registry import ActionDefinition
from app.registry.ports import HandlerContext
from tests.engine.core.fakes import FakeJournal, context, pipeline
from tests.engine.core.test_executor import ANY_CONFIG, Script, definition, run, step


def if_step(
    step_id: str, condition: dict[str, Any], then: list[Any], otherwise: list[Any] | None = None
) -> Any:
    block: dict[str, Any] = {"condition": condition, "then": then}
    if otherwise is not None:
        block["else"] = otherwise
    return {"step_id": step_id, "if": block}


def loop(
    step_id: str, items: Any, steps: list[Any], output_as: str | None = "results", **options: Any
) -> Any:
    document: dict[str, Any] = {"step_id": step_id, "for_each": {"items": items, "steps": steps, **options}}
    if output_as:
        document["output_as"] = output_as
    return document


class Probe:
    """An action `probe` that counts the iterations in flight, can hold its item until `gate` calls are
    in flight together, or until another item has finished (`waits_for`), and fails or pauses on the
    items it is told to."""

    def __init__(self, script: Script, gate: int = 0) -> None:
        self.in_flight = 0
        self.most = 0
        self.seen: list[Any] = []
        self.fail_on: set[Any] = set()
        self.pause_on: dict[Any, BaseException] = {}
        self.waits_for: dict[Any, Any] = {}
        self.finished: dict[Any, asyncio.Event] = {}
        self.gate = gate
        self.opened = asyncio.Event()

        async def handler(ctx: HandlerContext, config: dict[str, Any]) -> Any:
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
            item = config.get("item")
            try:
                if self.in_flight >= self.gate:
                    self.opened.set()
                await self.opened.wait()
                if item in self.waits_for:
                    await self.finished.setdefault(self.waits_for[item], asyncio.Event()).wait()
                self.seen.append(item)
                if item in self.pause_on:
                    raise self.pause_on[item]
                if item in self.fail_on:
                    raise StepError("bad_item", f"item {item} is bad", retryable=False)
                return {"doubled": item * 2 if isinstance(item, int) else item, "path": ctx.step_path}
            finally:
                self.in_flight -= 1
                self.finished.setdefault(item, asyncio.Event()).set()

        script.registry.register(
            ActionDefinition(
                type="probe",
                name="probe",
                description="test probe",
                config_schema=ANY_CONFIG,
                output_contract={},
                handler=handler,
                duration_class="fast",
            )
        )


def probe(step_id: str = "p", **config: Any) -> dict[str, Any]:
    return step(step_id, "probe", config={"item": "{{ item }}", **config})


class TestIf:
    async def test_the_then_branch_runs_and_binds_into_the_enclosing_scope(self) -> None:
        script = Script()
        document = definition(
            if_step(
                "check",
                {"inputs.n": {"gt": 2}},
                [step("big", "echo", config={"size": "big"}, output_as="size")],
                [step("small", "echo", config={"size": "small"}, output_as="size")],
            ),
            step("after", "echo", config={"seen": "{{ size.size }}"}, output_as="after"),
        )
        outcome, journal, _ = await run(script, document, variables={"run": {"id": "r"}, "inputs": {"n": 3}})
        assert outcome.status == "succeeded"
        assert outcome.output == {"size": {"size": "big"}, "after": {"seen": "big"}}
        (decision,) = journal.at("check")
        assert (decision.action, decision.status, decision.output) == ("if", "succeeded", {"branch": "then"})
        assert [r.path for r in journal.records] == ["check", "big", "after"]

    async def test_the_else_branch_runs_when_the_condition_fails(self) -> None:
        script = Script()
        document = definition(
            if_step(
                "check",
                {"inputs.n": {"gt": "{{ inputs.limit }}"}},
                [step("big", "echo", output_as="size")],
                [step("small", "echo", config={"size": "small"}, output_as="size")],
            ),
        )
        outcome, journal, _ = await run(
            script, document, variables={"run": {"id": "r"}, "inputs": {"n": 3, "limit": 5}}
        )
        assert outcome.output == {"size": {"size": "small"}}
        assert journal.at("check")[0].output == {"branch": "else"}
        assert journal.at("check")[0].config == {"condition": {"inputs.n": {"gt": 5}}}

    async def test_an_empty_else_runs_nothing_and_the_plan_goes_on(self) -> None:
        script = Script()
        document = definition(
            if_step("check", {"inputs.n": 1}, [step("never", "echo")]), step("after", "echo")
        )
        outcome, journal, _ = await run(script, document, variables={"run": {"id": "r"}, "inputs": {"n": 2}})
        assert outcome.status == "succeeded"
        assert [r.path for r in journal.records] == ["check", "after"]

    async def test_a_resumed_if_takes_the_recorded_branch_without_evaluating_again(self) -> None:
        script = Script()
        document = definition(
            if_step("check", {"inputs.n": {"gt": 2}}, [step("big", "echo")], [step("small", "echo")])
        )
        resume = Resume(done={("plan", "check")}, outputs={("plan", "check"): {"branch": "else"}})
        outcome, journal, _ = await run(
            script, document, resume=resume, variables={"run": {"id": "r"}, "inputs": {"n": 3}}
        )
        assert outcome.status == "succeeded"
        assert [r.path for r in journal.records] == ["small"]

    async def test_a_condition_rendering_to_bad_grammar_fails_the_step(self) -> None:
        script = Script()
        document = definition(if_step("check", {"inputs.n": {"nonsense": 1}}, [step("big", "echo")]))
        outcome, journal, _ = await run(script, document, variables={"run": {"id": "r"}, "inputs": {"n": 3}})
        assert (outcome.status, outcome.failed_step_id) == ("failed", "check")
        assert outcome.error is not None
        assert outcome.error["code"] == "invalid_condition"
        assert journal.at("check")[0].status == "failed"
        assert "echo" not in script.calls


class TestForEach:
    async def test_concurrent_iterations_keep_their_outputs_in_input_order(self) -> None:
        script = Script()
        watch = Probe(script, gate=3)
        # Item 0 finishes only after item 2: outputs still come in input order.
        watch.waits_for = {0: 2}
        document = definition(
            loop("fan", list(range(10)), [probe()], concurrency=3),
            step("after", "echo", config={"n": "{{ results | length }}"}),
        )
        outcome, journal, _ = await run(script, document)
        assert outcome.status == "succeeded"
        results = outcome.output["results"]
        assert [r["doubled"] for r in results] == [i * 2 for i in range(10)]
        assert [r["path"] for r in results] == [f"fan/{i}/p" for i in range(10)]
        assert watch.most == 3
        assert watch.seen.index(2) < watch.seen.index(0)
        (record,) = journal.at("fan")
        assert (record.action, record.status, record.output) == ("for_each", "succeeded", results)
        assert script.calls["echo"] == [{"n": 10}]

    async def test_an_iteration_s_output_is_its_last_step_that_ran(self) -> None:
        script = Script()
        Probe(script)
        document = definition(
            loop(
                "fan",
                "{{ inputs.items }}",
                [probe("first"), step("maybe", "echo", when="item > 1", config={"late": "{{ item }}"})],
            )
        )
        outcome, _, _ = await run(
            script, document, variables={"run": {"id": "r"}, "inputs": {"items": [1, 2]}}
        )
        assert outcome.output["results"] == [{"doubled": 2, "path": "fan/0/first"}, {"late": 2}]

    async def test_an_if_inside_a_loop_decides_per_item(self) -> None:
        script = Script()
        document = definition(
            loop(
                "fan",
                [1, 5, 2, 7],
                [
                    if_step(
                        "size",
                        {"item": {"gt": 3}},
                        [step("big", "echo", config={"big": "{{ item }}"})],
                        [step("small", "echo", config={"small": "{{ index }}"})],
                    )
                ],
                concurrency=2,
            )
        )
        outcome, journal, _ = await run(script, document)
        assert outcome.output["results"] == [{"small": 0}, {"big": 5}, {"small": 2}, {"big": 7}]
        assert {r.path: r.output for r in journal.records if r.action == "if"} == {
            "fan/0/size": {"branch": "else"},
            "fan/1/size": {"branch": "then"},
            "fan/2/size": {"branch": "else"},
            "fan/3/size": {"branch": "then"},
        }

    async def test_nested_loops_address_their_steps_by_both_indexes(self) -> None:
        script = Script()
        document = definition(
            loop(
                "rows",
                [[1, 2], [3]],
                [
                    loop(
                        "cells",
                        "{{ item }}",
                        [step("cell", "echo", config={"v": "{{ item }}"})],
                        output_as=None,
                    )
                ],
            )
        )
        outcome, journal, _ = await run(script, document)
        assert outcome.output["results"] == [[{"v": 1}, {"v": 2}], [{"v": 3}]]
        assert [r.path for r in journal.records if r.step_id == "cell"] == [
            "rows/0/cells/0/cell",
            "rows/0/cells/1/cell",
            "rows/1/cells/0/cell",
        ]

    async def test_continue_on_error_keeps_going_and_reports_the_error_in_place(self) -> None:
        script = Script()
        watch = Probe(script)
        watch.fail_on = {2}
        document = definition(loop("fan", [1, 2, 3], [probe()], continue_on_error=True))
        outcome, _, _ = await run(script, document)
        assert outcome.status == "succeeded"
        first, failed, last = outcome.output["results"]
        assert (first["doubled"], last["doubled"]) == (2, 6)
        assert failed == {"error": {"code": "bad_item", "message": "item 2 is bad", "step_id": "p"}}

    async def test_a_failed_iteration_fails_the_loop_and_starts_no_other(self) -> None:
        script = Script()
        watch = Probe(script)
        watch.fail_on = {2}
        document = definition(loop("fan", [1, 2, 3, 4], [probe()]), step("after", "echo"))
        outcome, journal, _ = await run(script, document)
        assert (outcome.status, outcome.failed_step_id) == ("failed", "fan")
        assert outcome.error is not None
        assert outcome.error["code"] == "iteration_failed"
        assert outcome.error["details"]["index"] == 1
        assert watch.seen == [1, 2]
        assert journal.at("fan")[0].status == "failed"
        assert journal.failed_plan is not None
        assert journal.failed_plan[0] == "fan"

    async def test_items_that_are_not_a_list_fail_without_retry(self) -> None:
        script = Script()
        document = definition(loop("fan", "{{ inputs.items }}", [step("p", "echo")]), max_retries=3)
        outcome, journal, _ = await run(
            script, document, variables={"run": {"id": "r"}, "inputs": {"items": "abc"}}
        )
        assert outcome.status == "failed"
        assert outcome.error is not None
        assert (outcome.error["code"], outcome.error["retryable"]) == ("items_not_a_list", False)
        assert [r.path for r in journal.records] == ["fan"]

    async def test_too_many_items_fail_before_any_iteration_runs(self) -> None:
        script = Script()
        document = definition(loop("fan", list(range(6)), [step("p", "echo")], max_items=5))
        outcome, journal, _ = await run(script, document)
        assert outcome.error is not None
        assert outcome.error["code"] == "too_many_items"
        assert "echo" not in script.calls
        assert len(journal.records) == 1

    async def test_an_empty_list_yields_an_empty_output(self) -> None:
        script = Script()
        outcome, _, _ = await run(script, definition(loop("fan", [], [step("p", "echo")])))
        assert outcome.output == {"results": []}


class TestResumeInLoops:
    async def test_done_iterations_are_rebuilt_from_records_and_not_run_again(self) -> None:
        script = Script()
        watch = Probe(script)
        document = definition(
            loop(
                "fan",
                [1, 2, 3, 4],
                [probe("a"), step("b", "echo", config={"b": "{{ item }}"})],
                concurrency=2,
            )
        )
        # An earlier claim finished iterations 0 and 2, and iteration 1's first step.
        done = {
            "fan/0/a": {"doubled": 2},
            "fan/0/b": {"b": 1},
            "fan/2/a": {"doubled": 6},
            "fan/2/b": {"b": 3},
            "fan/1/a": {"doubled": 4},
        }
        resume = Resume(
            done={("plan", path) for path in done},
            outputs={("plan", path): output for path, output in done.items()},
            failed_attempts={("plan", "fan"): 1, ("plan", "fan/3/a"): 1},
            failures={("plan", "fan/3/a"): {"code": "interrupted", "message": "the worker stopped"}},
        )
        outcome, journal, _ = await run(script, document, resume=resume)
        assert outcome.status == "succeeded"
        assert outcome.output["results"] == [{"b": 1}, {"b": 2}, {"b": 3}, {"b": 4}]
        assert watch.seen == [4], "only the unfinished iteration's first step runs"
        assert sorted(r.path for r in journal.records) == ["fan", "fan/1/b", "fan/3/a", "fan/3/b"]
        assert [r.attempt for r in journal.at("fan")] == [2]
        assert [r.attempt for r in journal.at("fan/3/a")] == [2]

    async def test_an_iteration_that_failed_for_good_is_not_tried_again(self) -> None:
        script = Script()
        watch = Probe(script)
        document = definition(loop("fan", [1, 2], [probe()], continue_on_error=True))
        error = {"code": "bad_item", "message": "item 1 is bad", "retryable": False}
        resume = Resume(failed_attempts={("plan", "fan/0/p"): 1}, failures={("plan", "fan/0/p"): error})
        outcome, _, _ = await run(script, document, resume=resume)
        assert outcome.output["results"][0] == {
            "error": {"code": "bad_item", "message": "item 1 is bad", "step_id": "p"}
        }
        assert watch.seen == [2]

    async def test_a_loop_records_its_list_before_the_first_iteration(self) -> None:
        script = Script()
        Probe(script)
        document = definition(loop("fan", "{{ [3, 1, 2] }}", [probe()]))
        outcome, journal, _ = await run(script, document)
        assert outcome.output["results"] == [
            {"doubled": d, "path": f"fan/{i}/p"} for i, d in enumerate([6, 2, 4])
        ]
        assert [r.items for r in journal.at("fan")] == [[3, 1, 2]]

    async def test_a_continued_loop_goes_on_over_its_recorded_list_without_rendering_again(self) -> None:
        script = Script()
        watch = Probe(script)
        # The template would now answer another list: the one recorded when the loop began wins.
        document = definition(loop("fan", "{{ [9, 8, 7, 6] }}", [probe()]))
        resume = Resume(
            done={("plan", "fan/0/p")},
            outputs={("plan", "fan/0/p"): {"doubled": 2}},
            items={("plan", "fan"): [1, 2]},
            failed_attempts={("plan", "fan"): 1},
        )
        outcome, journal, _ = await run(script, document, resume=resume)
        assert outcome.output["results"] == [{"doubled": 2}, {"doubled": 4, "path": "fan/1/p"}]
        assert watch.seen == [2]
        assert [(r.attempt, r.items) for r in journal.at("fan")] == [(2, None)]

    async def test_a_done_loop_binds_its_recorded_output(self) -> None:
        script = Script()
        document = definition(
            loop("fan", [1], [step("p", "work")]), step("after", "echo", config={"n": "{{ results[0] }}"})
        )
        resume = Resume(done={("plan", "fan")}, outputs={("plan", "fan"): ["kept"]})
        outcome, _, _ = await run(script, document, resume=resume)
        assert "work" not in script.calls
        assert script.calls["echo"] == [{"n": "kept"}]
        assert outcome.output == {"results": ["kept"]}


class TestPausesAndStops:
    async def test_an_approval_in_an_iteration_pauses_the_loop_after_the_others_end(self) -> None:
        script = Script()
        watch = Probe(script, gate=2)
        identity = context(pipeline(), step_id="p").next_call_id()
        watch.pause_on = {2: Suspend("approval_required", call=identity, capability_id="crm.note")}
        # Item 1 is still in flight when item 2 pauses, and goes on to its end.
        watch.waits_for = {1: 2}
        document = definition(loop("fan", [1, 2, 3, 4, 5], [probe()], concurrency=2))
        outcome, journal, _ = await run(script, document)
        assert outcome.status == "suspended"
        assert outcome.suspension is not None
        assert outcome.suspension["reason"] == "approval_required"
        # Iteration 0 was in flight with iteration 1 and ended; no iteration started after the pause.
        assert watch.seen == [2, 1]
        assert journal.at("fan/1/p")[0].status == "suspended"
        loop_record = journal.at("fan")[0]
        assert (loop_record.status, loop_record.suspension) == (
            "suspended",
            {"reason": "iterations_paused", "iterations": [1]},
        )
        assert journal.failed_plan is None

    async def test_a_wait_in_an_iteration_ends_the_claim_waiting(self) -> None:
        script = Script()
        watch = Probe(script)
        watch.pause_on = {1: Wait("time", until="2030-01-01T00:00:00+00:00")}
        outcome, journal, _ = await run(script, definition(loop("fan", [1, 2], [probe()])))
        assert outcome.status == "waiting"
        assert outcome.suspension == {"wait": {"kind": "time", "until": "2030-01-01T00:00:00+00:00"}}
        record = journal.at("fan/0/p")[0]
        assert (record.status, record.suspension) == ("suspended", outcome.suspension)
        assert watch.seen == [1]

    async def test_an_approval_wins_over_a_wait_among_paused_iterations(self) -> None:
        script = Script()
        watch = Probe(script)
        identity = context(pipeline(), step_id="p").next_call_id()
        watch.pause_on = {
            1: Wait("event"),
            2: Suspend("approval_required", call=identity, capability_id="crm.note"),
        }
        outcome, _, _ = await run(script, definition(loop("fan", [1, 2], [probe()], concurrency=2)))
        assert outcome.status == "suspended"

    async def test_a_cancel_during_a_loop_stops_it_cleanly(self) -> None:
        script = Script()
        watch = Probe(script)
        journal = FakeJournal(stop_after=4)
        document = definition(loop("fan", list(range(10)), [probe()], concurrency=2), step("after", "echo"))
        outcome, journal, _ = await run(script, document, journal=journal)
        assert outcome.status == "cancelled"
        assert len(watch.seen) == 3, "the loop's record and three iterations began before the cancel"
        record = journal.at("fan")[0]
        assert record.status == "failed"
        assert record.error is not None
        assert record.error["code"] == "loop_stopped"
        assert "echo" not in script.calls


class TestCallIdentity:
    def test_a_call_inside_a_loop_is_identified_by_its_step_path(self) -> None:
        ctx = context(pipeline(), step_id="p")
        ctx.step_path = "fan/2/p"
        call = ctx.next_call_id()
        assert call.key == "run-1/fan/2/p/1/0"
        assert call.as_dict() == {
            "run_id": "run-1",
            "step_id": "p",
            "attempt": 1,
            "index": 0,
            "path": "fan/2/p",
        }

    def test_a_step_outside_loops_keeps_its_identity(self) -> None:
        call = context(pipeline(), step_id="p").next_call_id()
        assert call.key == "run-1/p/1/0"
        assert call.as_dict() == {"run_id": "run-1", "step_id": "p", "attempt": 1, "index": 0}
