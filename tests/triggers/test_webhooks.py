"""Webhook fires: trigger tokens, input mapping, idempotency, rate limits, and every bad request."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI
from httpx import ASGITransport, AsyncClient
from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.definitions.run_states import RunStatus
from app.main import create_app
from app.persistence.base import utcnow
from app.persistence.models import Automation, AutomationTrigger, Run
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.transaction import autocommit, transaction
from app.services.runs.dispatch import dispatcher
from app.services.runs.fire_request import FireRequest
from app.services.runs.limits import DispatchLimits
from tests.support.factories import Caller, Factory
from tests.support.fake_llm import TEST_MODEL
from tests.support.runs import wait_for

MAPPED = {
    "schema_version": "1.0",
    "name": "CI webhook",
    "inputs": {
        "schema": {
            "type": "object",
            "required": ["repository", "status"],
            "properties": {"repository": {"type": "string"}, "status": {"enum": ["passed", "failed"]}},
        }
    },
    "triggers": [
        {
            "type": "webhook",
            "config": {"input_mapping": {"repository": "$.repository.full_name", "status": "$.build.status"}},
        }
    ],
    "plan": [
        {
            "step_id": "echo",
            "action": "transform_data",
            "config": {"output": "{{ inputs.repository }} {{ inputs.status }} {{ trigger.build.url }}"},
            "output_as": "echo",
        }
    ],
}
BODY = {"repository": {"full_name": "acme/api"}, "build": {"status": "failed", "url": "https://ci/1"}}


async def _webhook_automation(owner: Caller, *, activate: bool = True) -> tuple[str, str, str]:
    response = await owner.request("POST", owner.space_path("/automations"), json={"definition": MAPPED})
    assert response.status_code == 201, response.text
    created = response.json()
    (trigger,) = created["triggers"]
    assert trigger["type"] == "webhook"
    assert trigger["token"].startswith("awh_")
    if activate:
        await owner.request("POST", owner.space_path(f"/automations/{created['id']}/activate"))
    return created["id"], trigger["id"], trigger["token"]


async def _fire(client: AsyncClient, automation_id: str, token: str | None, body: Any = BODY, **kwargs: Any):  # type: ignore[no-untyped-def]
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    headers.update(kwargs.pop("headers", {}))
    return await client.post(
        f"/api/v1/automations/{automation_id}/fire", json=body, headers=headers, **kwargs
    )


async def _run_count(owner: Caller, automation_id: str) -> int:
    runs = await owner.request("GET", owner.space_path("/runs"), params={"automation_id": automation_id})
    return len(runs.json()["items"])


class TestFire:
    async def test_fire_maps_the_body_and_runs(self, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation_id, _, token = await _webhook_automation(owner)
        response = await _fire(owner.client, automation_id, token)
        assert response.status_code == 202, response.text
        answer = response.json()
        assert set(answer) == {"run_id", "status", "url", "run_url"}
        assert answer["status"] == "pending"
        run = await wait_for(owner, answer["run_id"])
        assert run["status"] == "succeeded"
        assert run["trigger_type"] == "webhook"
        assert run["inputs"] == {"repository": "acme/api", "status": "failed"}
        assert run["output"]["echo"] == "acme/api failed https://ci/1"

    async def test_token_is_shown_once_and_stored_hashed(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, _, token = await _webhook_automation(owner)
        again = (await owner.request("GET", owner.space_path(f"/automations/{automation_id}"))).json()
        assert again["triggers"][0]["token"] is None
        assert again["triggers"][0]["token_prefix"] == token[:12]
        assert token not in json.dumps(again)

    async def test_editing_the_mapping_keeps_the_token(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, trigger_id, token = await _webhook_automation(owner)
        changed = json.loads(json.dumps(MAPPED))
        changed["triggers"][0]["config"]["input_mapping"]["repository"] = "$.repository.name"
        response = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{automation_id}"),
            json={"definition": changed, "version": 1},
        )
        assert response.json()["triggers"][0]["id"] == trigger_id
        assert response.json()["triggers"][0]["token"] is None
        body = {"repository": {"name": "api"}, "build": {"status": "passed"}}
        assert (await _fire(owner.client, automation_id, token, body)).status_code == 202


class TestAuthentication:
    async def test_missing_wrong_and_foreign_tokens_are_401(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, _, _token = await _webhook_automation(owner)
        _, _, other_token = await _webhook_automation(owner)
        for bad in (None, "awh_wrong", owner.token, other_token):
            response = await _fire(owner.client, automation_id, bad)
            assert response.status_code == 401, bad
            assert response.json()["error"]["code"] in {"unauthorized", "invalid_token"}
        assert await _run_count(owner, automation_id) == 0

    async def test_revoked_and_rotated_tokens(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, trigger_id, token = await _webhook_automation(owner)
        base = owner.space_path(f"/automations/{automation_id}/triggers/{trigger_id}")
        assert (await owner.request("POST", f"{base}/revoke")).status_code == 200
        assert (await _fire(owner.client, automation_id, token)).status_code == 401
        rotated = (await owner.request("POST", f"{base}/rotate")).json()
        assert rotated["token"].startswith("awh_")
        assert rotated["token"] != token
        assert (await _fire(owner.client, automation_id, token)).status_code == 401
        assert (await _fire(owner.client, automation_id, rotated["token"])).status_code == 202
        again = (await owner.request("POST", f"{base}/rotate")).json()["token"]
        assert (await _fire(owner.client, automation_id, rotated["token"])).status_code == 401
        assert (await _fire(owner.client, automation_id, again)).status_code == 202

    async def test_rotate_in_another_space_is_404(self, factory: Factory) -> None:
        alice = await factory.owner()
        bob = await factory.owner()
        automation_id, trigger_id, token = await _webhook_automation(alice)
        response = await bob.request(
            "POST", bob.space_path(f"/automations/{automation_id}/triggers/{trigger_id}/rotate")
        )
        assert response.status_code == 404
        assert (await _fire(alice.client, automation_id, token)).status_code == 202

    async def test_paused_automation_is_409(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, _, token = await _webhook_automation(owner, activate=False)
        response = await _fire(owner.client, automation_id, token)
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "automation_paused"
        assert await _run_count(owner, automation_id) == 0


class TestBadBodies:
    async def test_each_bad_body_is_4xx_and_creates_nothing(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, _, token = await _webhook_automation(owner)
        url = f"/api/v1/automations/{automation_id}/fire"
        auth = {"Authorization": f"Bearer {token}"}
        cases = [
            (
                await owner.client.post(
                    url, content=b"{nope", headers={**auth, "Content-Type": "application/json"}
                ),
                400,
            ),
            (
                await owner.client.post(url, content=b"a=b", headers={**auth, "Content-Type": "text/plain"}),
                415,
            ),
            (await owner.client.post(url, json={"x": "y" * (1024 * 1024)}, headers=auth), 413),
            (await _fire(owner.client, automation_id, token, {"repository": {"full_name": "a"}}), 422),
            (
                await _fire(
                    owner.client,
                    automation_id,
                    token,
                    {"repository": {"full_name": 5}, "build": {"status": "passed"}},
                ),
                422,
            ),
            (await _fire(owner.client, automation_id, token, [1, 2, 3]), 422),
        ]
        for response, expected in cases:
            assert response.status_code == expected, response.text
            assert "error" in response.json()
        missing = cases[3][0].json()["error"]
        assert missing["code"] == "invalid_inputs"
        assert missing["details"][0]["path"] == "/inputs"
        assert await _run_count(owner, automation_id) == 0


class TestLastFiredAt:
    async def test_concurrent_fires_of_one_webhook_all_run_and_stamp_the_trigger(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        automation_id, trigger_id, token = await _webhook_automation(owner)
        before = datetime.now(UTC)
        responses = await asyncio.gather(*[_fire(owner.client, automation_id, token) for _ in range(20)])
        assert sorted(r.status_code for r in responses) == [202] * 20
        assert len({r.json()["run_id"] for r in responses}) == 20
        first = await _last_fired_at(factory, trigger_id)
        assert first is not None
        assert first >= before
        response = await _fire(owner.client, automation_id, token)
        assert response.status_code == 202
        later = await _last_fired_at(factory, trigger_id)
        assert later is not None
        assert later > first, "a later fire moves the stamp forward"
        runs = (
            await owner.request("GET", owner.space_path("/runs"), params={"automation_id": automation_id})
        ).json()
        assert len(runs["items"]) == 21

    async def test_a_refused_fire_does_not_stamp_the_trigger(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, trigger_id, token = await _webhook_automation(owner)
        response = await _fire(owner.client, automation_id, token, body={"repository": {}})
        assert response.status_code == 422
        assert await _last_fired_at(factory, trigger_id) is None


async def _last_fired_at(factory: Factory, trigger_id: str) -> datetime | None:
    async with factory.app.state.sessionmaker() as session:
        trigger = await session.get(AutomationTrigger, uuid.UUID(trigger_id))
        assert trigger is not None
        return trigger.last_fired_at


class TestTheRunRow:
    async def test_a_fired_run_snapshots_the_current_version_and_starts_with_fresh_counters(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        automation_id, trigger_id, token = await _webhook_automation(owner)
        edited = {**MAPPED, "description": "second version"}
        saved = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{automation_id}"),
            json={"definition": edited, "version": 1},
        )
        assert saved.status_code == 200, saved.text
        response = await _fire(owner.client, automation_id, token)
        assert response.status_code == 202, response.text
        async with factory.app.state.sessionmaker() as session:
            run = await session.get(Run, uuid.UUID(response.json()["run_id"]))
            automation = await session.get(Automation, uuid.UUID(automation_id))
        assert run is not None
        assert automation is not None
        assert (run.automation_version, run.definition) == (2, automation.definition)
        assert run.definition["description"] == "second version"
        assert response.json()["status"] == "pending"
        assert (run.trigger_type, run.trigger_id) == ("webhook", uuid.UUID(trigger_id))
        # The session's worker may have claimed the run since: its status and attempt are then its own.
        assert run.attempt == (0 if run.status == RunStatus.pending else 1), run.status
        assert (run.cost_usd, run.llm_tokens, run.cancel_requested) == (0, 0, False)
        assert run.enqueued_at is not None
        assert run.enqueued_at == run.created_at
        assert run.trigger_payload == BODY
        assert response.headers["Location"] == f"/api/v1/spaces/{run.space_id}/runs/{run.id}"

    async def test_a_fire_admission_drops_is_answered_recorded_and_stamps_the_trigger(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        priced = {
            **MAPPED,
            "plan": [
                {
                    "step_id": "ask",
                    "action": "llm_complete",
                    "config": {
                        "model": TEST_MODEL,
                        "max_tokens": 1000,
                        "messages": [{"role": "user", "content": "{{ inputs.repository }}"}],
                    },
                }
            ],
            "execution": {"budget_cap_usd": 0.0001},
        }
        created = await owner.request("POST", owner.space_path("/automations"), json={"definition": priced})
        assert created.status_code == 201, created.text
        automation_id, (trigger,) = created.json()["id"], created.json()["triggers"]
        await owner.request("POST", owner.space_path(f"/automations/{automation_id}/activate"))
        response = await _fire(owner.client, automation_id, trigger["token"])
        assert response.status_code == 202, response.text
        assert response.json()["status"] == "dropped"
        run = (await owner.request("GET", owner.space_path(f"/runs/{response.json()['run_id']}"))).json()
        assert run["status"] == "dropped"
        assert run["reason"].startswith("budget_exceeded")
        assert await _last_fired_at(factory, trigger["id"]) is not None


class _RoundTrips:
    """Statements sent, and BEGIN/COMMIT/ROLLBACK the driver sends (none on an autocommit connection)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine.sync_engine
        self.count = 0

    def _one(self, *_: Any, **__: Any) -> None:
        self.count += 1

    def _transaction(self, connection: Any, *_: Any) -> None:
        if connection.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
            self.count += 1

    def __enter__(self) -> _RoundTrips:
        event.listen(self.engine, "before_cursor_execute", self._one)
        for name in ("begin", "commit", "rollback"):
            event.listen(self.engine, name, self._transaction)
        return self

    def __exit__(self, *_: Any) -> None:
        event.remove(self.engine, "before_cursor_execute", self._one)
        for name in ("begin", "commit", "rollback"):
            event.remove(self.engine, name, self._transaction)


async def _pooled_connections_are_transactional(engine: AsyncEngine) -> bool:
    """Whether every connection the pool holds runs two statements in one transaction again."""
    connections = [await engine.connect() for _ in range(engine.sync_engine.pool.checkedin())]
    try:
        for connection in connections:
            first = (await connection.execute(text("SELECT pg_current_xact_id()::text"))).scalar_one()
            second = (await connection.execute(text("SELECT pg_current_xact_id()::text"))).scalar_one()
            if first != second:
                return False
        return True
    finally:
        for connection in connections:
            await connection.close()


class TestRoundTrips:
    async def test_a_common_fire_is_one_lookup_and_one_insert(self, factory: Factory, app: FastAPI) -> None:
        owner = await factory.owner()
        automation_id, trigger_id, token = await _webhook_automation(owner)
        with _RoundTrips(app.state.engine) as counted:
            response = await _fire(owner.client, automation_id, token)
        assert response.status_code == 202, response.text
        assert counted.count == 2
        assert await _run_count(owner, automation_id) == 1
        assert await _last_fired_at(factory, trigger_id) is not None
        # Each connection went back to the pool at its usual isolation level.
        assert await _pooled_connections_are_transactional(app.state.engine)

    async def test_a_fire_with_a_key_runs_in_a_transaction(self, factory: Factory, app: FastAPI) -> None:
        owner = await factory.owner()
        automation_id, _, token = await _webhook_automation(owner)
        key = {"Idempotency-Key": f"delivery-{uuid.uuid4()}"}
        with _RoundTrips(app.state.engine) as counted:
            response = await _fire(owner.client, automation_id, token, headers=key)
        assert response.status_code == 202, response.text
        # The lookup, then BEGIN, the lock, the key's reads, the insert, COMMIT: more than the two.
        assert counted.count > 2
        again = await _fire(owner.client, automation_id, token, headers=key)
        assert again.status_code == 200
        assert again.json()["run_id"] == response.json()["run_id"]
        assert await _run_count(owner, automation_id) == 1


async def _fire_in_autocommit(
    app: FastAPI, automation_id: str, trigger_id: str, limits: DispatchLimits
) -> Run:
    """A trigger's fire through the dispatcher on a session in autocommit, as the webhook route has it;
    its wake-up goes nowhere, so the run stays as the fire left it."""
    async with transaction(app.state.sessionmaker, lambda job: None) as session:
        await autocommit(session)
        automation = await AutomationRepository(session).get_by_id(uuid.UUID(automation_id))
        assert automation is not None
        request = FireRequest(
            trigger_type="webhook",
            trigger_id=uuid.UUID(trigger_id),
            inputs={"repository": "acme/api", "status": "passed"},
        )
        result = await dispatcher.fire(session, (automation, request), limits, note_fired_at=utcnow())
    return result.run


class TestFiresThatNeedATransaction:
    async def test_a_serial_policy_still_counts_the_runs_in_flight(
        self, factory: Factory, app: FastAPI
    ) -> None:
        owner = await factory.owner()
        serial = json.loads(json.dumps(MAPPED))
        serial["execution"] = {"concurrency": "drop_if_running"}
        created = (
            await owner.request("POST", owner.space_path("/automations"), json={"definition": serial})
        ).json()
        await owner.request("POST", owner.space_path(f"/automations/{created['id']}/activate"))
        trigger_id = created["triggers"][0]["id"]
        first = await _fire_in_autocommit(app, created["id"], trigger_id, DispatchLimits())
        second = await _fire_in_autocommit(app, created["id"], trigger_id, DispatchLimits())
        assert first.status is RunStatus.pending
        assert second.status is RunStatus.dropped

    async def test_the_global_cap_still_counts_the_slots_taken(self, factory: Factory, app: FastAPI) -> None:
        owner = await factory.owner()
        automation_id, trigger_id, _ = await _webhook_automation(owner)
        capped = DispatchLimits(max_concurrent_runs=1)
        first = await _fire_in_autocommit(app, automation_id, trigger_id, capped)
        second = await _fire_in_autocommit(app, automation_id, trigger_id, capped)
        assert first.status is RunStatus.pending
        assert second.status is RunStatus.queued


class TestIdempotency:
    async def test_50_concurrent_fires_with_one_key_make_one_run(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, _, token = await _webhook_automation(owner)
        key = {"Idempotency-Key": f"delivery-{uuid.uuid4()}"}
        responses = await asyncio.gather(
            *[_fire(owner.client, automation_id, token, headers=key) for _ in range(50)]
        )
        codes = sorted(r.status_code for r in responses)
        assert codes.count(202) == 1
        assert codes.count(200) == 49
        assert len({r.json()["run_id"] for r in responses}) == 1
        assert await _run_count(owner, automation_id) == 1

    async def test_key_in_the_body_and_reuse_with_another_body(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, _, token = await _webhook_automation(owner)
        body = {**BODY, "idempotency_key": "in-body-1"}
        first = await _fire(owner.client, automation_id, token, body)
        second = await _fire(owner.client, automation_id, token, body)
        assert (first.status_code, second.status_code) == (202, 200)
        assert first.json()["run_id"] == second.json()["run_id"]
        other = {**body, "build": {"status": "passed"}}
        reused = await _fire(owner.client, automation_id, token, other)
        assert reused.status_code == 422
        assert reused.json()["error"]["code"] == "idempotency_key_reused"
        assert await _run_count(owner, automation_id) == 1


class TestRateLimit:
    async def test_fires_over_the_limit_are_429_with_retry_after(
        self, settings: Settings, factory: Factory
    ) -> None:
        owner = await factory.owner()
        automation_id, _, token = await _webhook_automation(owner)
        limited = create_app(
            settings.model_copy(update={"webhook_rate_limit": 3, "webhook_rate_window_seconds": 30})
        )
        async with (
            limited.router.lifespan_context(limited),
            AsyncClient(transport=ASGITransport(app=limited), base_url="http://testserver") as client,
        ):
            codes = [(await _fire(client, automation_id, token)).status_code for _ in range(5)]
            refused = await _fire(client, automation_id, token)
        assert codes == [202, 202, 202, 429, 429]
        assert int(refused.headers["retry-after"]) >= 1
        assert refused.json()["error"]["code"] == "rate_limited"
        assert await _run_count(owner, automation_id) == 3
