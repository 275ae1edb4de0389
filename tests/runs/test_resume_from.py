"""`resume_from`: what a new claim of a run takes over from the step records of earlier claims."""

from __future__ import annotations

import uuid
from typing import Any

from app.persistence.models import Run, RunStep
from app.services.runs.execution import resume_from


def run(**fields: Any) -> Run:
    return Run(id=uuid.uuid4(), failed_step_id=fields.get("failed_step_id"), error=fields.get("error"))


def record(
    path: str,
    attempt: int,
    status: str,
    output: Any = None,
    phase: str = "plan",
    error: Any = None,
    items: list[Any] | None = None,
) -> RunStep:
    return RunStep(
        phase=phase,
        step_index=0,
        path=path,
        step_id=path.rsplit("/", 1)[-1],
        attempt=attempt,
        status=status,
        output_full=output,
        error=error,
        loop_items=items,
    )


def test_a_fresh_run_resumes_nothing() -> None:
    resume = resume_from(run(), [])
    assert (resume.outputs, resume.done, resume.failed_attempts, resume.plan_error) == ({}, set(), {}, None)


def test_succeeded_and_skipped_steps_are_done_with_outputs_by_path() -> None:
    records = [record("a", 1, "succeeded", {"x": 1}), record("b", 1, "skipped"), record("c", 1, "failed")]
    resume = resume_from(run(), records)
    assert resume.done == {("plan", "a"), ("plan", "b")}
    assert resume.outputs == {("plan", "a"): {"x": 1}}
    assert resume.failed_attempts == {("plan", "c"): 1}


def test_iterations_of_a_loop_are_told_apart_by_path() -> None:
    records = [
        record("fan/0/p", 1, "succeeded", "zero"),
        record("fan/1/p", 1, "failed", error={"code": "x", "message": "m", "retryable": False}),
        record("fan/2/p", 1, "running"),
    ]
    resume = resume_from(run(), records)
    assert resume.done == {("plan", "fan/0/p")}
    assert resume.outputs == {("plan", "fan/0/p"): "zero"}
    assert resume.failed_attempts == {("plan", "fan/1/p"): 1, ("plan", "fan/2/p"): 1}
    assert resume.failures == {("plan", "fan/1/p"): {"code": "x", "message": "m", "retryable": False}}


def test_failed_attempts_count_the_highest_attempt_and_success_clears_them() -> None:
    records = [
        record("a", 1, "failed", error={"code": "x", "message": "m"}),
        record("a", 2, "failed"),
        record("a", 3, "succeeded", 5),
        record("c", 2, "failed"),
    ]
    resume = resume_from(run(), records)
    assert resume.failed_attempts == {("plan", "c"): 2}
    assert resume.failures == {}
    assert resume.outputs == {("plan", "a"): 5}


def test_a_suspended_attempt_is_not_used_up() -> None:
    records = [record("a", 1, "failed"), record("a", 2, "suspended")]
    resume = resume_from(run(), records)
    # The next claim runs attempt 2 again, so its calls keep their identities.
    assert resume.failed_attempts == {("plan", "a"): 1}
    assert ("plan", "a") not in resume.done


def test_an_interrupted_attempt_counts_as_failed() -> None:
    resume = resume_from(run(), [record("b", 4, "failed")])
    assert resume.failed_attempts == {("plan", "b"): 4}


def test_a_failed_plan_resumes_in_on_failure_with_its_error() -> None:
    error = {"code": "fatal", "message": "x"}
    records = [record("a", 1, "failed"), record("tell", 1, "succeeded", "said", phase="on_failure")]
    resume = resume_from(run(failed_step_id="a", error=error), records)
    assert (resume.plan_error, resume.failed_step_id) == (error, "a")
    assert ("on_failure", "tell") in resume.done
    assert resume.outputs == {("on_failure", "tell"): "said"}


def test_a_loop_not_done_keeps_the_list_it_began_with_and_a_done_one_needs_none() -> None:
    records = [
        record("fan", 1, "failed", items=[1, 2]),
        record("fan", 2, "running"),
        record("outer/0/fan", 1, "suspended", items=["a"]),
        record("done", 1, "failed", items=[3]),
        record("done", 2, "succeeded", ["kept"]),
    ]
    resume = resume_from(run(), records)
    assert resume.items == {("plan", "fan"): [1, 2], ("plan", "outer/0/fan"): ["a"]}
