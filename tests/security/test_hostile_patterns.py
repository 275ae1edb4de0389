"""Backtracking patterns against the API: refused at save when RE2 cannot run them, linear otherwise,
and the event loop keeps answering while a large hostile fire is checked."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
from httpx import AsyncClient, Response

from tests.support.backtracking import BACKTRACKING
from tests.support.factories import Caller, Factory, minimal_definition


def _inputs_schema(**properties: Any) -> dict[str, Any]:
    return {"schema": {"type": "object", "properties": properties}}


async def _create(owner: Caller, definition: dict[str, Any]) -> dict[str, Any]:
    response = await owner.request("POST", owner.space_path("/automations"), json={"definition": definition})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    await owner.request("POST", owner.space_path(f"/automations/{created['id']}/activate"))
    return created


async def _webhook(owner: Caller, inputs: dict[str, Any], mapping: dict[str, str]) -> tuple[str, str]:
    """An active automation with a webhook trigger: (automation id, trigger token)."""
    created = await _create(
        owner,
        minimal_definition(
            inputs=inputs, triggers=[{"type": "webhook", "config": {"input_mapping": mapping}}]
        ),
    )
    return created["id"], created["triggers"][0]["token"]


async def _fire(client: AsyncClient, automation_id: str, token: str, body: Any) -> Response:
    return await client.post(
        f"/api/v1/automations/{automation_id}/fire", json=body, headers={"Authorization": f"Bearer {token}"}
    )


def _details(response: Response) -> list[dict[str, Any]]:
    details: list[dict[str, Any]] = response.json()["error"]["details"]
    return details


class TestRefusedAtSave:
    async def test_backreference_in_an_inputs_schema(self, factory: Factory) -> None:
        owner = await factory.owner()
        definition = minimal_definition(inputs=_inputs_schema(s={"type": "string", "pattern": r"^(a)\1$"}))
        response = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": definition}
        )
        assert response.status_code == 422
        (detail,) = _details(response)
        assert detail["path"] == "/definition/inputs/schema/properties/s/pattern"
        assert "backreferences" in detail["message"]

    async def test_lookahead_in_an_agent_output_schema(self, factory: Factory) -> None:
        owner = await factory.owner()
        step = {
            "step_id": "think",
            "action": "agent_task",
            "config": {
                "prompt": "Say hi",
                "model": "openai/test-model",
                "output_schema": {"type": "object", "properties": {"x": {"pattern": "^(?!admin)"}}},
            },
        }
        response = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": minimal_definition(plan=[step])}
        )
        assert response.status_code == 422
        paths = {detail["path"]: detail for detail in _details(response)}
        detail = paths["/definition/plan/0/config/output_schema/properties/x/pattern"]
        assert detail["code"] == "invalid_schema"
        assert "lookaround" in detail["message"]

    async def test_the_validate_endpoint_reports_the_same_pointer(self, factory: Factory) -> None:
        owner = await factory.owner()
        definition = minimal_definition(inputs=_inputs_schema(s={"patternProperties": {"(?<=a)": {}}}))
        response = await owner.request(
            "POST", owner.space_path("/automations/validate"), json={"definition": definition}
        )
        assert response.status_code == 200
        body = response.json()
        assert body["valid"] is False
        assert body["errors"][0]["path"] == "/inputs/schema/properties/s/patternProperties"


class TestLinearAtFire:
    @pytest.mark.parametrize(("pattern", "hostile"), BACKTRACKING)
    async def test_run_now(self, factory: Factory, pattern: str, hostile: str) -> None:
        owner = await factory.owner()
        created = await _create(
            owner, minimal_definition(inputs=_inputs_schema(s={"type": "string", "pattern": pattern}))
        )
        response = await owner.request(
            "POST", owner.space_path(f"/automations/{created['id']}/runs"), json={"inputs": {"s": hostile}}
        )
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "invalid_inputs"
        assert [detail["path"] for detail in _details(response)] == ["/inputs/s"]

    @pytest.mark.parametrize(("pattern", "hostile"), BACKTRACKING)
    async def test_webhook_fire(
        self, factory: Factory, client: AsyncClient, pattern: str, hostile: str
    ) -> None:
        owner = await factory.owner()
        automation_id, token = await _webhook(
            owner, _inputs_schema(s={"type": "string", "pattern": pattern}), {"s": "$.s"}
        )
        response = await _fire(client, automation_id, token, {"s": hostile})
        assert response.status_code == 422
        assert [detail["path"] for detail in _details(response)] == ["/inputs/s"]

    async def test_the_reported_fire_from_the_review(self, factory: Factory, client: AsyncClient) -> None:
        owner = await factory.owner()
        automation_id, token = await _webhook(
            owner, _inputs_schema(s={"type": "string", "pattern": "^(a+)+$"}), {"s": "$.s"}
        )
        refused = await _fire(client, automation_id, token, {"s": "a" * 28 + "!"})
        assert refused.status_code == 422
        accepted = await _fire(client, automation_id, token, {"s": "a" * 28})
        assert accepted.status_code == 202, accepted.text


ROW_FIELDS = 8
ROWS = 9_000


class TestEventLoopStaysFree:
    async def test_healthz_answers_while_a_large_hostile_fire_is_checked(
        self, factory: Factory, client: AsyncClient
    ) -> None:
        # A near-1 MB body whose every row runs eight backtracking patterns: hundreds of thousands of
        # keyword evaluations, the last row hostile. Parsing, mapping and validating it run on threads;
        # were any on the event loop, /healthz could not answer until the fire did.
        owner = await factory.owner()
        row_schema = {
            "type": "object",
            "properties": {f"f{i}": {"type": "string", "pattern": "^(a+)+$"} for i in range(ROW_FIELDS)},
        }
        automation_id, token = await _webhook(
            owner, _inputs_schema(rows={"type": "array", "items": row_schema}), {"rows": "$.rows"}
        )
        rows = [{f"f{i}": "aaaa" for i in range(ROW_FIELDS)} for _ in range(ROWS)]
        rows[-1]["f0"] = "a" * 28 + "!"

        loop = asyncio.get_running_loop()
        # A full collection late in a long test session walks every object the session holds and
        # stops all threads for it (0.6 s was seen): a pause of the process, not of the event loop.
        gc.collect()
        gc.disable()
        try:
            fire = asyncio.create_task(_fire(client, automation_id, token, {"rows": rows}))
            started = last = loop.time()
            answered, longest_wait = 0, 0.0
            while not fire.done():
                await asyncio.sleep(0.005)  # an in-process call may never suspend: let the fire run
                health = await client.get("/healthz")
                assert health.status_code == 200
                answered += 1
                now = loop.time()
                longest_wait, last = max(longest_wait, now - last), now
            took = loop.time() - started
        finally:
            gc.enable()
        # A ratio, not a time limit: were the check on the event loop, one health check would wait
        # for nearly the whole fire; on threads, each waits a small slice of it.
        assert answered >= 10, f"{answered} health checks answered during a {took:.2f} s fire"
        assert longest_wait < took / 4, f"a health check waited {longest_wait:.3f} s of a {took:.2f} s fire"

        response = await fire
        assert response.status_code == 422, response.text
        assert [detail["path"] for detail in _details(response)] == [f"/inputs/rows/{ROWS - 1}/f0"]
