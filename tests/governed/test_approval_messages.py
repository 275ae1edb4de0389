"""The Slack message of an approval says who approved it in every state after the approval."""

from __future__ import annotations

import uuid

import pytest

from app.persistence.models.invocations import ActionInvocation
from app.services.governance.notices import approval_message


def _invocation(status: str) -> ActionInvocation:
    return ActionInvocation(
        id=uuid.uuid4(),
        run_id=uuid.uuid4(),
        step_id="notify",
        capability="http.request",
        params={"url": "https://example.test"},
        status=status,
        required_approvals=1,
        expires_at=None,
    )


@pytest.mark.parametrize(
    ("status", "suffix"),
    [
        ("approved", ""),
        ("executing", " (running)"),
        ("executed", " (done)"),
        ("failed", " (the call failed)"),
    ],
)
def test_an_update_sent_after_the_call_ran_still_names_the_approver(status: str, suffix: str) -> None:
    message = approval_message(_invocation(status), ["ada@example.test"])
    assert message["text"].endswith(f"(:white_check_mark: Approved by ada@example.test{suffix})")
    assert not [block for block in message["blocks"] if block["type"] == "actions"]


def test_a_denied_call_names_who_denied_it_and_loses_its_buttons() -> None:
    message = approval_message(_invocation("denied"), ["bob@example.test"])
    assert message["text"].endswith("(:no_entry: Denied by bob@example.test)")
    assert not [block for block in message["blocks"] if block["type"] == "actions"]


def test_a_pending_call_keeps_its_buttons() -> None:
    message = approval_message(_invocation("pending"), [])
    assert "Waiting for 1 approval(s)" in message["text"]
    assert [block for block in message["blocks"] if block["type"] == "actions"]
