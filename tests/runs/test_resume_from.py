"""`resume_from`: what a new claim of a run takes over from the step records of earlier claims."""

from __future__ import annotations

import uuid
from typing import Any

from app.definitions.automation import AutomationDefinition
from app.persistence.models import Run, RunStep
from app.services.runs.execution import resume_from

DEFINITION = AutomationDefinition.model_validate(
    {
        "schema_version": "1.0",
        "name": "resume",
        "plan": [
            {"step_id": "a", "action": "transform_data", "config": {"output": 1}, "output_as": "first"},
            {"step_id": "b", "action": "transform_data", "config": {"output": 2}},
            {"step_id": "c", "action": "transform_data", "config": {"output": 3}, "output_as": "third"},
        ],
        "execution": {
            "on_failure": [
                {"step_id": "tell", "action": "transform_data", "config": {"output": 0}, "output_as": "told"}
            ]
        },
    }
)


def run(**fields: Any) -> Run:
    return Run(id=uuid.uuid4(), failed_step_id=fields.get("failed_step_id"), error=fields.get("error"))


def record(index: int, attempt: int, status: str, output: Any = None, phase: str = "plan") -> RunStep:
    step_id = (DEFINITION.plan if phase == "plan" else DEFINITION.execution.on_failure)[index].step_id
    return RunStep(
        phase=phase, step_index=index, step_id=step_id, attempt=attempt, status=status, output_full=output
    )


def test_a_fresh_run_resumes_nothing() -> None:
    resume = resume_from(run(), [], DEFINITION)
    assert (resume.outputs, resume.done, resume.failed_attempts, resume.plan_error) == ({}, set(), {}, None)


def test_succeeded_and_skipped_steps_are_done_with_bound_outputs_restored() -> None:
    records = [record(0, 1, "succeeded", {"x": 1}), record(1, 1, "skipped"), record(2, 1, "failed")]
    resume = resume_from(run(), records, DEFINITION)
    assert resume.done == {("plan", 0), ("plan", 1)}
    assert resume.outputs == {"first": {"x": 1}}
    assert resume.failed_attempts == {("plan", 2): 1}


def test_failed_attempts_count_the_highest_attempt_and_success_clears_them() -> None:
    records = [
        record(0, 1, "failed"),
        record(0, 2, "failed"),
        record(0, 3, "succeeded", 5),
        record(2, 2, "failed"),
    ]
    resume = resume_from(run(), records, DEFINITION)
    assert resume.failed_attempts == {("plan", 2): 2}
    assert resume.outputs == {"first": 5}


def test_a_suspended_attempt_is_not_used_up() -> None:
    records = [record(0, 1, "failed"), record(0, 2, "suspended")]
    resume = resume_from(run(), records, DEFINITION)
    # The next claim runs attempt 2 again, so its calls keep their identities.
    assert resume.failed_attempts == {("plan", 0): 1}
    assert ("plan", 0) not in resume.done


def test_an_interrupted_attempt_counts_as_failed() -> None:
    resume = resume_from(run(), [record(1, 4, "failed")], DEFINITION)
    assert resume.failed_attempts == {("plan", 1): 4}


def test_a_failed_plan_resumes_in_on_failure_with_its_error() -> None:
    error = {"code": "fatal", "message": "x"}
    records = [record(0, 1, "failed"), record(0, 1, "succeeded", "said", phase="on_failure")]
    resume = resume_from(run(failed_step_id="a", error=error), records, DEFINITION)
    assert (resume.plan_error, resume.failed_step_id) == (error, "a")
    assert ("on_failure", 0) in resume.done
    assert resume.outputs == {"told": "said"}


def test_records_of_steps_the_definition_no_longer_has_are_ignored_for_outputs() -> None:
    stray = RunStep(phase="plan", step_index=9, step_id="gone", attempt=1, status="succeeded", output_full=1)
    resume = resume_from(run(), [stray], DEFINITION)
    assert resume.outputs == {}
    assert ("plan", 9) in resume.done
