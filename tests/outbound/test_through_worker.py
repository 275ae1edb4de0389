"""Completion webhooks end to end: a real worker and beat, runs finishing, receivers verifying."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from app.config import Settings
from tests.support.factories import Caller, Factory, minimal_definition
from tests.support.outbound import endpoint
from tests.support.processes import worker_down
from tests.support.receivers import Receivers
from tests.support.runs import fire, start, wait_for
from tests.support.servers import flush_prefix


async def deliveries(caller: Caller, **query: Any) -> list[dict[str, Any]]:
    response = await caller.request("GET", caller.space_path("/webhook-endpoints/deliveries"), params=query)
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items


async def settled(caller: Caller, count: int, timeout: float = 60, **query: Any) -> list[dict[str, Any]]:
    """Wait until `count` deliveries exist and none is still owed."""
    deadline = time.monotonic() + timeout
    while True:
        found = await deliveries(caller, **query)
        if len(found) >= count and all(d["status"] != "pending" for d in found):
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"deliveries did not settle: {found}")
        await asyncio.sleep(0.2)


class TestRunFinished:
    async def test_a_finished_run_is_delivered_to_the_endpoints_that_listen(
        self, factory: Factory, receivers: Receivers, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        everything = await endpoint(owner, receivers, "ok/everything")
        await endpoint(owner, receivers, "ok/failures", events=["automation.run.failed"])
        other = await owner.create_automation(minimal_definition(name="Other"))
        await endpoint(owner, receivers, "ok/other", automation_ids=[other["id"]])

        automation_id, run = await start(owner, minimal_definition(name="Reported"))
        assert (await wait_for(owner, run["id"]))["status"] == "succeeded"

        (shown,) = await settled(owner, 1, run_id=run["id"])
        assert shown["endpoint_id"] == everything.id
        detail = await owner.request("GET", owner.space_path(f"/runs/{run['id']}"))
        assert [d["id"] for d in detail.json()["webhook_deliveries"]] == [shown["id"]]
        assert detail.json()["webhook_deliveries"][0]["attempt_log"][0]["status_code"] == 200
        assert shown["status"] == "succeeded"
        assert [a["status_code"] for a in shown["attempt_log"]] == [200]
        (got,) = receivers.wait_for("everything", 1)
        assert got.error is None
        assert got.headers["webhook-id"] == shown["id"]
        data = got.payload["data"]
        assert got.payload["type"] == "automation.run.succeeded"
        assert data["run_id"] == run["id"]
        assert data["automation_id"] == automation_id
        assert data["automation_name"] == "Reported"
        assert data["url"] == f"/api/v1/spaces/{owner.space_id}/runs/{run['id']}"
        assert "output" not in data
        assert "inputs" not in data
        assert receivers.received["failures"] == []
        assert receivers.received["other"] == []

    async def test_a_dropped_fire_is_delivered_too(
        self, factory: Factory, receivers: Receivers, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        await endpoint(owner, receivers, "ok/drops", events=["automation.run.dropped"])
        document = minimal_definition(name="Capped", execution={"cost_cap_daily_usd": 0})
        _, run = await start(owner, document)
        assert run["status"] == "dropped"
        (got,) = receivers.wait_for("drops", 1)
        assert got.payload["data"]["status"] == "dropped"
        assert got.payload["data"]["reason"].startswith("daily_cost_cap_reached")

    async def test_500_then_200_through_the_worker(
        self, factory: Factory, receivers: Receivers, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        await endpoint(owner, receivers, "flaky/retried?times=1")
        _, run = await start(owner, minimal_definition())
        await wait_for(owner, run["id"])
        (shown,) = await settled(owner, 1, run_id=run["id"])
        assert shown["status"] == "succeeded"
        assert [a["status_code"] for a in shown["attempt_log"]] == [500, 200]
        first, second = receivers.wait_for("retried", 2)
        assert first.headers["webhook-id"] == second.headers["webhook-id"]
        assert second.error is None

    async def test_redeliver_sends_once_more_with_the_same_webhook_id(
        self, factory: Factory, receivers: Receivers, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        target = await endpoint(owner, receivers, "ok/again")
        sent = await owner.request("POST", owner.space_path(f"/webhook-endpoints/{target.id}/test"))
        assert sent.status_code == 202
        delivery_id = sent.json()["id"]
        await settled(owner, 1)

        response = await owner.request(
            "POST", owner.space_path(f"/webhook-endpoints/deliveries/{delivery_id}/redeliver")
        )
        assert response.status_code == 202, response.text
        (shown,) = await settled(owner, 1)
        assert [a["attempt"] for a in shown["attempt_log"]] == [1, 2]
        first, second = receivers.wait_for("again", 2)
        assert first.payload["type"] == "webhook.test"
        assert first.headers["webhook-id"] == second.headers["webhook-id"] == delivery_id

        by_endpoint = await owner.request(
            "GET", owner.space_path(f"/webhook-endpoints/{target.id}/deliveries"), params={"status": "failed"}
        )
        assert by_endpoint.json()["items"] == []

    async def test_redelivering_an_unknown_delivery_is_404(self, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        response = await owner.request(
            "POST",
            owner.space_path("/webhook-endpoints/deliveries/00000000-0000-0000-0000-000000000000/redeliver"),
        )
        assert response.status_code == 404


class TestLostWakeUps:
    async def test_a_broker_flush_after_the_terminal_transition_loses_no_delivery(
        self, factory: Factory, receivers: Receivers, stack, settings: Settings
    ) -> None:  # type: ignore[no-untyped-def]
        worker, _beat = stack
        owner = await factory.owner()
        await endpoint(owner, receivers, "ok/flushed", events=["automation.run.cancelled"])
        automation = await owner.create_automation(minimal_definition())
        with worker_down(worker, settings):
            run = await fire(owner, automation["id"])
            cancelled = await owner.request("POST", owner.space_path(f"/runs/{run['id']}/cancel"))
            assert cancelled.status_code in (200, 202), cancelled.text
            assert flush_prefix(settings.resolved_redis_url(), settings.redis_key_prefix) > 0
        (shown,) = await settled(owner, 1, run_id=run["id"])
        assert shown["status"] == "succeeded"
        (got,) = receivers.wait_for("flushed", 1)
        assert got.payload["type"] == "automation.run.cancelled"


class TestRunCallback:
    async def test_a_run_callback_is_signed_with_the_space_callback_secret(
        self, factory: Factory, receivers: Receivers, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        created = await owner.request("POST", owner.space_path("/webhook-endpoints/callback-secret"))
        assert created.status_code == 200, created.text
        receivers.secrets["callback"] = created.json()["secret"]
        automation = await owner.create_automation(minimal_definition(name="Called back"))
        response = await owner.request(
            "POST",
            owner.space_path(f"/automations/{automation['id']}/runs"),
            json={"callback_url": receivers.url("ok/callback")},
        )
        assert response.status_code == 202, response.text
        run = response.json()
        await wait_for(owner, run["id"])
        (shown,) = await settled(owner, 1, run_id=run["id"])
        assert shown["endpoint_id"] is None
        assert shown["status"] == "succeeded"
        (got,) = receivers.wait_for("callback", 1)
        assert got.error is None
        assert got.payload["data"]["run_id"] == run["id"]

    async def test_a_callback_is_refused_without_a_secret_or_to_a_private_address(
        self, factory: Factory, receivers: Receivers
    ) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation()
        path = owner.space_path(f"/automations/{automation['id']}/runs")
        missing = await owner.request("POST", path, json={"callback_url": receivers.url("ok/nobody")})
        assert missing.status_code == 422
        assert missing.json()["error"]["code"] == "callback_secret_missing"
        await owner.request("POST", owner.space_path("/webhook-endpoints/callback-secret"))
        private = await owner.request(
            "POST", path, json={"callback_url": "https://169.254.169.254/latest/meta-data/"}
        )
        assert private.status_code == 422
        assert private.json()["error"]["details"][0]["path"] == "/callback_url"
        runs = await owner.request("GET", owner.space_path("/runs"))
        assert runs.json()["items"] == [], "nothing was started"

    async def test_a_webhook_fire_accepts_a_callback_url(
        self, factory: Factory, receivers: Receivers, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        created = await owner.request("POST", owner.space_path("/webhook-endpoints/callback-secret"))
        receivers.secrets["fired"] = created.json()["secret"]
        document = minimal_definition(name="Fired", triggers=[{"type": "webhook"}])
        automation = (
            await owner.request("POST", owner.space_path("/automations"), json={"definition": document})
        ).json()
        token = automation["triggers"][0]["token"]
        await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
        fire_path = f"/api/v1/automations/{automation['id']}/fire"
        auth = {"Authorization": f"Bearer {token}"}

        refused = await owner.client.post(
            fire_path, json={}, headers=auth, params={"callback_url": "https://10.0.0.1/hook"}
        )
        assert refused.status_code == 422
        assert refused.json()["error"]["details"][0]["path"] == "/query/callback_url"

        fired = await owner.client.post(
            fire_path, json={}, headers=auth, params={"callback_url": receivers.url("ok/fired")}
        )
        assert fired.status_code == 202, fired.text
        (got,) = receivers.wait_for("fired", 1)
        assert got.error is None
        assert got.payload["data"]["run_id"] == fired.json()["run_id"]
        assert got.payload["data"]["trigger_type"] == "webhook"
