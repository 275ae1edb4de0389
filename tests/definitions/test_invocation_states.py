"""The invocation-state table: every pair of statuses is allowed or refused as written out here by hand."""

from __future__ import annotations

import itertools

import pytest

from app.definitions import invocation_states
from app.definitions.invocation_states import InvocationStatus, InvocationTransitionRefused
from app.persistence.models.invocations import INVOCATION_STATUSES

S = InvocationStatus
ALLOWED = {
    (S.pending, S.approved),
    (S.pending, S.denied),
    (S.pending, S.expired),
    (S.approved, S.executing),
    (S.executing, S.executed),
    (S.executing, S.failed),
}
CREATED_AS = {S.pending, S.executed, S.failed, S.denied, S.suppressed}


@pytest.mark.parametrize(("source", "target"), list(itertools.product(S, S)))
def test_every_pair_is_allowed_only_as_the_table_says(source: S, target: S) -> None:
    assert invocation_states.is_allowed(source, target) is ((source, target) in ALLOWED)
    if (source, target) in ALLOWED:
        assert invocation_states.check(source.value, target.value) is target
    else:
        with pytest.raises(InvocationTransitionRefused, match=f"from {source.value} to {target.value}"):
            invocation_states.check(source.value, target.value)


@pytest.mark.parametrize("status", list(S))
def test_a_record_is_written_only_in_a_starting_status(status: S) -> None:
    if status in CREATED_AS:
        assert invocation_states.created(status.value) is status
    else:
        with pytest.raises(InvocationTransitionRefused, match=f"cannot be recorded {status.value}"):
            invocation_states.created(status.value)


def test_an_unknown_status_is_refused() -> None:
    with pytest.raises(ValueError, match="'running'"):
        invocation_states.created("running")


def test_terminal_statuses_lead_nowhere() -> None:
    for source, target in itertools.product(invocation_states.TERMINAL, S):
        assert not invocation_states.is_allowed(source, target)


class _Row:
    def __init__(self, status: str) -> None:
        self.status = status


def test_move_changes_a_loaded_row_along_an_edge_and_refuses_a_stale_one() -> None:
    row = _Row("pending")
    invocation_states.move(row, invocation_states.APPROVE)
    assert row.status == S.approved
    with pytest.raises(InvocationTransitionRefused, match="from approved to denied"):
        invocation_states.move(row, invocation_states.DENY)
    assert row.status == S.approved


def test_the_column_check_lists_every_status() -> None:
    assert set(INVOCATION_STATUSES) == {status.value for status in S}
