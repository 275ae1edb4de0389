"""The run-state table: every allowed and every refused move, against the lifecycle written out by hand."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import pytest

from app.definitions import run_states
from app.definitions.run_states import RunStatus, TransitionRefused

S = RunStatus

# The lifecycle of the design (§5), spelled out independently of the module: target <- allowed sources.
EXPECTED_FROM: dict[RunStatus, set[RunStatus]] = {
    S.queued: set(),
    S.pending: {S.queued, S.running, S.awaiting_approval, S.waiting},
    S.running: {S.pending, S.running},
    S.awaiting_approval: {S.running},
    S.waiting: {S.running},
    S.succeeded: {S.running},
    S.failed: {S.running, S.awaiting_approval},
    S.cancelled: {S.queued, S.pending, S.running, S.awaiting_approval, S.waiting},
    S.timed_out: {S.running},
    S.dropped: set(),
}
EXPECTED_INITIAL = {S.queued, S.pending, S.dropped}
ALLOWED = sorted((s, t) for t, sources in EXPECTED_FROM.items() for s in sources)
REFUSED = sorted((s, t) for s, t in product(RunStatus, RunStatus) if s not in EXPECTED_FROM[t])


@dataclass
class FakeRun:
    status: RunStatus


def test_every_status_has_a_row() -> None:
    assert set(run_states.ALLOWED_FROM) == set(RunStatus) == set(EXPECTED_FROM)


@pytest.mark.parametrize(("source", "target"), ALLOWED, ids=[f"{s}->{t}" for s, t in ALLOWED])
def test_allowed_move(source: RunStatus, target: RunStatus) -> None:
    run = FakeRun(source)
    run_states.move(run, target)
    assert run.status is target


@pytest.mark.parametrize(("source", "target"), REFUSED, ids=[f"{s}->{t}" for s, t in REFUSED])
def test_refused_move_raises_and_changes_nothing(source: RunStatus, target: RunStatus) -> None:
    run = FakeRun(source)
    with pytest.raises(TransitionRefused) as refused:
        run_states.move(run, target)
    assert run.status is source
    assert f"from {source.value} to {target.value}" in str(refused.value)


@pytest.mark.parametrize("status", list(RunStatus))
def test_a_run_is_created_only_queued_pending_or_dropped(status: RunStatus) -> None:
    if status in EXPECTED_INITIAL:
        assert run_states.initial(status) is status
    else:
        with pytest.raises(TransitionRefused, match=f"cannot be created {status.value}"):
            run_states.initial(status)


@pytest.mark.parametrize("status", sorted(run_states.TERMINAL))
def test_terminal_statuses_lead_nowhere(status: RunStatus) -> None:
    assert not any(run_states.is_allowed(status, target) for target in RunStatus)


def test_every_non_terminal_status_can_finish() -> None:
    """No run can get stuck: from every live status some path reaches a terminal one."""
    reachable = set(run_states.TERMINAL)
    changed = True
    while changed:
        changed = False
        for target in list(reachable):
            for source in run_states.ALLOWED_FROM[target] - reachable:
                reachable.add(source)
                changed = True
    assert reachable == set(RunStatus)


class TestNamedTransitions:
    def test_names_are_unique(self) -> None:
        names = [edge.name for edge in run_states.TRANSITIONS]
        assert len(names) == len(set(names))

    def test_cancel_takes_only_runs_no_worker_holds(self) -> None:
        assert run_states.CANCEL.sources == {S.queued, S.pending, S.awaiting_approval, S.waiting}
        assert run_states.STOP.sources == {S.running}

    def test_claim_and_release(self) -> None:
        assert run_states.CLAIM.sources == {S.pending, S.running}
        assert run_states.RELEASE.sources == {S.running}
        assert run_states.RELEASE.target is S.pending

    def test_awaiting_approval_holds_no_slot_but_stays_in_flight(self) -> None:
        assert S.awaiting_approval not in run_states.HOLDS_SLOT
        assert S.awaiting_approval in run_states.IN_FLIGHT
        assert S.queued in run_states.IN_FLIGHT
        assert S.queued not in run_states.UNDER_WAY
        assert not run_states.IN_FLIGHT & run_states.TERMINAL

    def test_waiting_holds_no_slot_but_a_serial_automation_waits_for_it(self) -> None:
        assert S.waiting not in run_states.HOLDS_SLOT
        assert S.waiting in run_states.UNDER_WAY
        assert run_states.WAIT.sources == {S.running}
        assert run_states.WAIT.target is S.waiting
        assert run_states.WAKE.sources == {S.waiting}
        assert run_states.WAKE.target is S.pending


def test_a_refused_named_transition_says_which_and_from_where() -> None:
    refused = TransitionRefused(S.running, S.cancelled, run_states.CANCEL)
    assert str(refused) == (
        "the cancel transition cannot take a run from running "
        "(only from: awaiting_approval, pending, queued, waiting)"
    )
