"""A webhook caller follows the run it fired: the run URL read with the same trigger token, `?wait=N`
for the finished run, and run now's `wait_seconds`; every other token, run or wait is refused."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from httpx import AsyncClient, Response

from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.runs import http_step

VIEW_KEYS = {"run_id", "status", "error", "url"}


def _document(*plan: dict[str, Any], visibility: str | None = None) -> dict[str, Any]:
    config: dict[str, Any] = {"input_mapping": {"who": "$.who"}}
    if visibility is not None:
        config["output_visibility"] = visibility
    return {
        "schema_version": "1.0",
        "name": "Followed webhook",
        "inputs": {"schema": {"type": "object", "properties": {"who": {"type": "string"}}}},
        "triggers": [{"type": "webhook", "config": config}],
        "plan": list(plan)
        or [{"step_id": "greet", "action": "transform_data", "config": {"output": "hi {{ inputs.who }}"}}],
    }


async def _webhook(owner: Caller, document: dict[str, Any]) -> tuple[str, str]:
    response = await owner.request("POST", owner.space_path("/automations"), json={"definition": document})
    assert response.status_code == 201, response.text
    created = response.json()
    await owner.request("POST", owner.space_path(f"/automations/{created['id']}/activate"))
    return created["id"], created["triggers"][0]["token"]


async def _fire(client: AsyncClient, automation_id: str, token: str, **params: Any) -> Response:
    return await client.post(
        f"/api/v1/automations/{automation_id}/fire",
        json={"who": "ada"},
        headers={"Authorization": f"Bearer {token}"},
        params=params,
    )


async def _read(client: AsyncClient, url: str, token: str | None) -> Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return await client.get(url, headers=headers)


async def _until_finished(client: AsyncClient, url: str, token: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        view = (await _read(client, url, token)).json()
        if view["status"] in {"succeeded", "failed", "timed_out", "cancelled", "dropped"}:
            return view
        assert time.monotonic() < deadline, view
        await asyncio.sleep(0.2)


class TestWebhookWait:
    async def test_a_fast_run_is_answered_finished(self, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation_id, token = await _webhook(owner, _document())
        response = await _fire(owner.client, automation_id, token, wait=20)
        assert response.status_code == 200, response.text
        answer = response.json()
        assert answer["status"] == "succeeded"
        assert answer["error"] is None
        assert "output" not in answer, "the trigger does not show callers the output"
        assert answer["run_url"] == f"/api/v1/automations/{automation_id}/runs/{answer['run_id']}"
        view = await _read(owner.client, answer["run_url"], token)
        assert view.status_code == 200
        assert set(view.json()) == VIEW_KEYS
        assert view.json()["status"] == "succeeded"

    async def test_output_is_shown_when_the_trigger_says_so(self, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation_id, token = await _webhook(owner, _document(visibility="caller"))
        answer = (await _fire(owner.client, automation_id, token, wait=20)).json()
        assert answer["status"] == "succeeded"
        assert answer["output"] == {}  # nothing bound with output_as
        view = (await _read(owner.client, answer["run_url"], token)).json()
        assert set(view) == VIEW_KEYS | {"output"}

    async def test_a_slow_run_is_202_and_its_url_shows_the_end(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        slow = http_step("slow", f"{loopback.url}/slow/follow-{uuid.uuid4().hex[:6]}?seconds=3")
        automation_id, token = await _webhook(owner, _document(slow))
        response = await _fire(owner.client, automation_id, token, wait=0.5)
        assert response.status_code == 202, response.text
        answer = response.json()
        assert answer["status"] in {"pending", "running"}
        assert set(answer) == {"run_id", "status", "url", "run_url"}
        view = await _until_finished(owner.client, answer["run_url"], token)
        assert view["status"] == "succeeded"
        assert view["run_id"] == answer["run_id"]

    async def test_a_failed_run_shows_its_error(self, factory: Factory, loopback: Loopback, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        broken = http_step("broken", f"{loopback.url}/status/500/follow-{uuid.uuid4().hex[:6]}")
        automation_id, token = await _webhook(owner, _document(broken))
        answer = (await _fire(owner.client, automation_id, token, wait=20)).json()
        assert answer["status"] == "failed"
        assert answer["error"]["code"]

    async def test_bad_waits_and_priorities_are_422_and_fire_nothing(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, token = await _webhook(owner, _document())
        for params in ({"wait": 31}, {"wait": -1}, {"wait": "soon"}, {"priority": 1001}, {"priority": "x"}):
            response = await _fire(owner.client, automation_id, token, **params)
            assert response.status_code == 422, (params, response.text)
        runs = await owner.request("GET", owner.space_path("/runs"), params={"automation_id": automation_id})
        assert runs.json()["items"] == []


class TestRunUrlAccess:
    async def test_only_the_firing_token_reads_the_run(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, token = await _webhook(owner, _document())
        other_id, other_token = await _webhook(owner, _document())
        answer = (await _fire(owner.client, automation_id, token)).json()
        url = answer["run_url"]
        assert (await _read(owner.client, url, token)).status_code == 200
        for wrong in (other_token, token + "x", "awh_" + "0" * 40, owner.token, None):
            response = await _read(owner.client, url, wrong)
            assert response.status_code == 404, (wrong, response.text)
            assert response.json()["error"]["code"] == "run_not_found"
        # The same run under another automation's path, with that automation's token.
        foreign = f"/api/v1/automations/{other_id}/runs/{answer['run_id']}"
        assert (await _read(owner.client, foreign, other_token)).status_code == 404
        missing = f"/api/v1/automations/{automation_id}/runs/{uuid.uuid4()}"
        assert (await _read(owner.client, missing, token)).status_code == 404
        # A run of the same automation not fired by this trigger (run now) is not the caller's.
        manual = await owner.request("POST", owner.space_path(f"/automations/{automation_id}/runs"), json={})
        manual_url = f"/api/v1/automations/{automation_id}/runs/{manual.json()['id']}"
        assert (await _read(owner.client, manual_url, token)).status_code == 404
        bad = await _read(owner.client, f"/api/v1/automations/{automation_id}/runs/not-a-uuid", token)
        assert bad.status_code == 422


class TestRunNowWait:
    async def test_fast_is_200_finished_and_slow_is_202(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation_id, _ = await _webhook(owner, _document())
        path = owner.space_path(f"/automations/{automation_id}/runs")
        done = await owner.request("POST", path, json={"wait_seconds": 20, "inputs": {"who": "bo"}})
        assert done.status_code == 200, done.text
        assert done.json()["status"] == "succeeded"
        assert done.json()["output"] == {}

        slow = http_step("slow", f"{loopback.url}/slow/run-now-{uuid.uuid4().hex[:6]}?seconds=3")
        slow_id, _ = await _webhook(owner, _document(slow))
        waiting = await owner.request(
            "POST", owner.space_path(f"/automations/{slow_id}/runs"), json={"wait_seconds": 0.5}
        )
        assert waiting.status_code == 202, waiting.text
        assert waiting.json()["status"] in {"pending", "running"}
        assert waiting.headers["Location"] == waiting.json()["url"]

    async def test_bad_waits_are_422(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, _ = await _webhook(owner, _document())
        path = owner.space_path(f"/automations/{automation_id}/runs")
        for bad in (31, -1, "soon", None):
            response = await owner.request("POST", path, json={"wait_seconds": bad})
            assert response.status_code == 422, (bad, response.text)
