"""The event catalog's schemas describe what the service really sends: a run's end as published on
the bus and as delivered to webhook endpoints, and an approval's request and decision."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from tests.governed.helpers import name, waiting_run
from tests.support.approvals import decide, the_approval
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.outbound import endpoint
from tests.support.receivers import Receivers
from tests.support.runs import definition, start, wait_for


async def _schemas(caller: Caller) -> dict[str, dict[str, Any]]:
    response = await caller.request("GET", caller.space_path("/catalog"))
    assert response.status_code == 200, response.text
    return {item["type"]: item for item in response.json()["events"]}


def _problems(schema: dict[str, Any], value: Any) -> list[str]:
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return [error.message for error in validator.iter_errors(value)]


async def _bus_event(caller: Caller, event_type: str) -> dict[str, Any]:
    events = await caller.request("GET", caller.space_path("/events"))
    (event,) = [item for item in events.json()["items"] if item["event_type"] == event_type]
    return event


class TestRunEvents:
    async def test_a_succeeded_and_a_failed_run_match_their_schemas(
        self, factory: Factory, receivers: Receivers, stack: Any
    ) -> None:
        owner = await factory.owner()
        hook = name("catalog")
        await endpoint(owner, receivers, f"ok/{hook}", events=["automation.run.*"])
        schemas = await _schemas(owner)
        good = definition({"step_id": "a", "action": "transform_data", "config": {"output": {"n": 1}}})
        bad = definition(
            {"step_id": "a", "action": "transform_data", "config": {"output": "{{ inputs.missing.x }}"}},
            name="Fails",
        )
        for document, status in ((good, "succeeded"), (bad, "failed")):
            _, run = await start(owner, document)
            assert (await wait_for(owner, run["id"]))["status"] == status
            entry = schemas[f"automation.run.{status}"]
            event = await _bus_event(owner, f"automation.run.{status}")
            assert event["payload"]["run_id"] == run["id"]
            assert _problems(entry["payload_schema"], event["payload"]) == []
        delivered = receivers.wait_for(hook, 2)
        for received in delivered:
            body = received.payload
            assert _problems(schemas[body["type"]]["webhook_schema"], body["data"]) == []

    async def test_the_schemas_refuse_a_payload_of_another_status(self, factory: Factory) -> None:
        owner = await factory.owner()
        schemas = await _schemas(owner)
        payload = {"automation_id": "x", "run_id": "y", "status": "failed", "output": None, "error": None}
        assert _problems(schemas["automation.run.succeeded"]["payload_schema"], payload)


class TestApprovalEvents:
    async def test_a_request_and_its_decision_match_their_schemas(
        self, factory: Factory, loopback: Loopback, receivers: Receivers, stack: Any
    ) -> None:
        owner = await factory.owner()
        hook = name("approval-catalog")
        await endpoint(owner, receivers, f"ok/{hook}", events=["approval.requested", "approval.decided"])
        schemas = await _schemas(owner)
        _, run = await waiting_run(owner, loopback, name("catalogued"))
        receivers.wait_for(hook, 1)
        approval = await the_approval(owner, run["id"])
        assert (await decide(owner, approval["id"], "deny", {"reason": "no"})).status_code == 200
        requested, decided = receivers.wait_for(hook, 2)
        for received in (requested, decided):
            body = received.payload
            assert _problems(schemas[body["type"]]["webhook_schema"], body["data"]) == []
