"""Finishing rules: which columns each outcome writes and which consequences follow (no database)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from app.definitions import run_states
from app.definitions.run_states import RunStatus
from app.engine.claim_ports import Outcome
from app.persistence.models import Run
from app.services.runs.finishing import OUTCOME_TRANSITIONS, claim_end
from app.services.runs.limits import DispatchLimits
from app.services.runs.move_rules import RUN_POLICY
from app.services.runs.transition import plan_of

NOW = datetime(2026, 11, 23, 9, 30, tzinfo=UTC)


def _values(outcome: Outcome) -> dict[str, object]:
    run = Run(id=uuid.uuid4(), status=RunStatus.running, attempt=1, mode="live")
    move = claim_end(run, outcome, DispatchLimits(), NOW)
    assert move is not None
    return plan_of(move).values


def _consequences(target: RunStatus) -> list[str]:
    acting = [rule for rule in RUN_POLICY if target in rule.applies_to]
    return [rule.name for rule in acting if "follow" in type(rule).__dict__]


class TestOutcomeTransitions:
    @pytest.mark.parametrize(
        ("outcome", "target"),
        [
            ("succeeded", RunStatus.succeeded),
            ("failed", RunStatus.failed),
            ("timed_out", RunStatus.timed_out),
            ("cancelled", RunStatus.cancelled),
            ("retry_later", RunStatus.pending),
            ("waiting", RunStatus.waiting),
        ],
    )
    def test_each_outcome_is_an_edge_from_running(self, outcome: str, target: RunStatus) -> None:
        transition = OUTCOME_TRANSITIONS[outcome]
        assert transition.target is target
        assert run_states.is_allowed(RunStatus.running, target)

    def test_a_lost_lease_records_nothing(self) -> None:
        assert "lease_lost" not in OUTCOME_TRANSITIONS


class TestValues:
    def test_succeeded_writes_the_display_output_and_the_finish_time(self) -> None:
        values = _values(Outcome("succeeded", output={"answer": 42, "token": "sk-abcdefghijklmnopqrstuv"}))
        assert values["finished_at"] == NOW
        assert values["output"] == {"answer": 42, "token": "[REDACTED]"}
        assert "error" not in values
        assert "retry_at" not in values

    def test_failed_writes_the_redacted_error(self) -> None:
        error = {"code": "x", "message": "Bearer sk-abcdefghijklmnopqrstuv"}
        values = _values(Outcome("failed", error=error))
        assert values["finished_at"] == NOW
        assert isinstance(values["error"], dict)
        assert "sk-abcdefghijklmnopqrstuv" not in str(values["error"])
        assert "output" not in values

    def test_cancelled_says_why(self) -> None:
        values = _values(Outcome("cancelled"))
        assert values == {"finished_at": NOW, "reason": "cancelled by request"}

    def test_timed_out_keeps_its_error(self) -> None:
        values = _values(Outcome("timed_out", error={"code": "run_timeout"}))
        assert values == {"finished_at": NOW, "error": {"code": "run_timeout"}}

    def test_retry_later_waits_and_is_not_finished(self) -> None:
        values = _values(Outcome("retry_later", retry_in_seconds=8.0))
        assert values == {"retry_at": NOW + timedelta(seconds=8), "enqueued_at": NOW}


class TestConsequences:
    @pytest.mark.parametrize("target", sorted(run_states.TERMINAL - {RunStatus.dropped}))
    def test_a_finished_run_publishes_its_event_and_frees_its_slot(self, target: RunStatus) -> None:
        # A cancelled run's pending calls expire and its children are cancelled first (their decisions
        # and ends are announced before the run's end); a child's end wakes its parent before its own.
        first = ["expire_pending_calls", "cancel_children"] if target is RunStatus.cancelled else []
        expected = [*first, "wake_parent", "publish_terminal", "promote_queued", "count_finished"]
        assert _consequences(target) == expected

    def test_a_retry_is_re_enqueued_and_publishes_nothing(self) -> None:
        assert _consequences(RunStatus.pending) == ["schedule_wake_up"]

    def test_a_wait_enqueues_only_when_a_wake_up_overtook_it(self) -> None:
        assert _consequences(RunStatus.waiting) == ["wake_on_wait"]
