"""`approval.requested` and `approval.decided` reach the space's webhook endpoints that subscribe."""

from __future__ import annotations

from typing import Any

from tests.governed.helpers import name, waiting_run
from tests.support.approvals import decide, the_approval
from tests.support.factories import Factory
from tests.support.loopback import Loopback
from tests.support.outbound import endpoint
from tests.support.receivers import Receivers
from tests.support.runs import wait_for


async def test_a_request_and_its_decision_are_delivered_signed(
    factory: Factory, loopback: Loopback, receivers: Receivers, stack: Any
) -> None:
    owner = await factory.owner()
    hook = name("approvals")
    await endpoint(owner, receivers, f"ok/{hook}", events=["approval.requested", "approval.decided"])
    _, run = await waiting_run(owner, loopback, name("evented"))
    (requested,) = receivers.wait_for(hook, 1)
    assert requested.error is None, "the delivery verifies with the endpoint's secret"
    body = requested.payload
    assert body["type"] == "approval.requested"
    assert (body["data"]["run_id"], body["data"]["capability"]) == (run["id"], "http.request")
    assert "params" not in body["data"], "the event never carries the call's params"

    approval = await the_approval(owner, run["id"])
    assert body["data"]["approval_id"] == approval["id"]
    assert (await decide(owner, approval["id"], "deny", {"reason": "no"})).status_code == 200
    _, decided = receivers.wait_for(hook, 2)
    assert decided.payload["type"] == "approval.decided"
    assert (decided.payload["data"]["status"], decided.payload["data"]["denied_reason"]) == (
        "denied",
        "human",
    )
    assert (await wait_for(owner, run["id"]))["error"]["code"] == "approval_denied"
