"""The run pipeline end to end: dispatcher, real worker, step records, chaining of outputs."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from app.persistence.models import DomainEvent
from tests.support.factories import Factory
from tests.support.loopback import Loopback
from tests.support.runs import attempts, definition, fire, http_step, start, wait_for


class TestHappyPath:
    async def test_three_steps_with_when_chaining_and_http(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = f"chain-{uuid.uuid4().hex[:6]}"
        document = definition(
            {
                "step_id": "shape",
                "action": "transform_data",
                "config": {"output": {"items": "{{ inputs.items }}", "title": "Hello {{ inputs.who }}"}},
                "output_as": "shaped",
            },
            {
                "step_id": "never",
                "action": "transform_data",
                "when": "{{ shaped['items'] | length > 10 }}",
                "config": {"output": "unreachable"},
                "output_as": "never",
            },
            {
                **http_step("call", f"{loopback.url}/count/{name}"),
                "config": {"method": "POST", "url": f"{loopback.url}/count/{name}", "json": "{{ shaped }}"},
                "output_as": "answer",
            },
            inputs={
                "schema": {
                    "type": "object",
                    "properties": {"who": {"type": "string"}, "items": {"type": "array", "default": [1, 2]}},
                }
            },
        )
        _, run = await start(owner, document, {"who": "Ada"})
        assert run["status"] == "pending"
        assert run["queue"] == "runs.fast"
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        assert done["llm_spend"] == [], "no step called a model"
        assert [(s["step_id"], s["status"]) for s in done["steps"]] == [
            ("shape", "succeeded"),
            ("never", "skipped"),
            ("call", "succeeded"),
        ]
        assert loopback.hits[name] == 1
        assert loopback.bodies[name] == [{"items": [1, 2], "title": "Hello Ada"}], (
            "lists pass between steps typed"
        )
        assert done["output"]["answer"]["json"]["count"] == 1
        assert done["inputs"] == {"who": "Ada", "items": [1, 2]}
        assert done["attempt"] == 1
        call = attempts(done, "call")[0]
        assert call["config"]["url"].endswith(f"/count/{name}")
        assert call["duration_ms"] is not None

    async def test_terminal_transition_publishes_an_event(self, app, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        automation_id, run = await start(
            owner,
            definition(
                {"step_id": "a", "action": "transform_data", "config": {"output": 7}, "output_as": "seven"}
            ),
        )
        await wait_for(owner, run["id"])
        async with app.state.sessionmaker() as session:
            events = (
                await session.scalars(select(DomainEvent).where(DomainEvent.source_id == automation_id))
            ).all()
        assert [e.event_type for e in events] == ["automation.run.succeeded"]
        assert events[0].payload["run_id"] == run["id"]
        assert events[0].payload["output"] == {"seven": 7}

    async def test_http_error_status_fails_unless_accepted(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = f"status-{uuid.uuid4().hex[:6]}"
        _, failing = await start(owner, definition(http_step("call", f"{loopback.url}/status/404/{name}")))
        failed = await wait_for(owner, failing["id"])
        assert failed["status"] == "failed"
        assert failed["failed_step_id"] == "call"
        assert "404" in failed["error"]["message"]
        accepted_step = http_step("call", f"{loopback.url}/status/404/{name}")
        accepted_step["config"]["accept_statuses"] = [404]
        _, accepted = await start(owner, definition(accepted_step))
        assert (await wait_for(owner, accepted["id"]))["status"] == "succeeded"

    async def test_url_query_and_query_config_are_merged(
        self, factory: Factory, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = f"merge-{uuid.uuid4().hex[:6]}"
        step = http_step("call", f"{loopback.url}/fail/{name}?times=1")
        step["config"]["query"] = {"extra": "yes"}
        step["config"]["accept_statuses"] = [500]
        _, run = await start(owner, definition(step))
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded"
        assert attempts(done, "call")[0]["output"]["status_code"] == 500, "times=1 from the URL was kept"

    async def test_egress_guard_refuses_private_targets(self, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        _, run = await start(owner, definition(http_step("call", "http://10.1.2.3/admin")))
        done = await wait_for(owner, run["id"])
        assert done["status"] == "failed"
        assert "10.1.2.3" in done["error"]["message"]

    async def test_notification_step_writes_to_the_inbox(self, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        _, run = await start(
            owner,
            definition(
                {
                    "step_id": "tell",
                    "action": "notification",
                    "config": {"title": "Run {{ run.id }}", "level": "success"},
                }
            ),
        )
        assert (await wait_for(owner, run["id"]))["status"] == "succeeded"
        inbox = (await owner.request("GET", owner.space_path("/notifications"))).json()["items"]
        assert [(n["title"], n["level"], n["run_id"]) for n in inbox] == [
            (f"Run {run['id']}", "success", run["id"])
        ]


class TestFireApi:
    async def test_bad_inputs_are_422_and_create_nothing(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation(
            definition(
                {"step_id": "a", "action": "transform_data", "config": {"output": 1}},
                inputs={
                    "schema": {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}
                },
            )
        )
        response = await owner.request(
            "POST", owner.space_path(f"/automations/{automation['id']}/runs"), json={"inputs": {"n": "x"}}
        )
        assert response.status_code == 422
        assert response.json()["error"]["details"][0]["path"] == "/inputs/n"
        runs = (await owner.request("GET", owner.space_path("/runs"))).json()["items"]
        assert runs == []

    async def test_idempotent_run_now_under_20_concurrent_requests(self, factory: Factory) -> None:
        import asyncio

        owner = await factory.owner()
        automation = await owner.create_automation()
        key = {"Idempotency-Key": f"k-{uuid.uuid4()}"}
        answers = await asyncio.gather(*[fire(owner, automation["id"], headers=key) for _ in range(20)])
        assert len({a["id"] for a in answers}) == 1
        runs = (
            await owner.request("GET", owner.space_path("/runs"), params={"automation_id": automation["id"]})
        ).json()
        assert len(runs["items"]) == 1

    async def test_same_key_different_inputs_is_422(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation()
        key = {"Idempotency-Key": f"k-{uuid.uuid4()}"}
        await fire(owner, automation["id"], {"a": 1}, headers=key)
        response = await owner.request(
            "POST",
            owner.space_path(f"/automations/{automation['id']}/runs"),
            json={"inputs": {"a": 2}},
            headers=key,
        )
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "idempotency_key_reused"

    async def test_runs_of_another_space_are_404(self, factory: Factory) -> None:
        alice = await factory.owner()
        bob = await factory.owner()
        automation = await alice.create_automation()
        run = await fire(alice, automation["id"])
        assert (await bob.request("GET", alice.space_path(f"/runs/{run['id']}"))).status_code == 404
        assert (await bob.request("GET", bob.space_path(f"/runs/{run['id']}"))).status_code == 404
        assert (await bob.request("POST", bob.space_path(f"/runs/{run['id']}/cancel"))).status_code == 404
