"""Preview: what a plan would do with these inputs, its calls and their modes, hosts, cost and fires."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import func, select

from app.persistence.models import LlmUsage, Run
from tests.support.factories import Caller, Factory
from tests.support.fake_llm import TEST_MODEL
from tests.support.loopback import Loopback


def plan(url: str) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": "Preview me",
        "inputs": {
            "schema": {
                "type": "object",
                "properties": {
                    "team": {"type": "string", "default": "ops"},
                    "n": {"type": "integer", "default": 2},
                },
            }
        },
        "triggers": [{"type": "schedule", "config": {"cron": "0 9 * * *", "timezone": "Europe/Berlin"}}],
        "plan": [
            {
                "step_id": "shape",
                "action": "transform_data",
                "config": {"output": {"title": "Digest for {{ inputs.team }}", "count": "{{ inputs.n }}"}},
                "output_as": "shaped",
            },
            {
                "step_id": "big",
                "action": "transform_data",
                "when": "{{ inputs.n > 5 }}",
                "config": {"output": 1},
            },
            {
                "step_id": "send",
                "action": "http_request",
                "when": "{{ shaped.count > 1 }}",
                "config": {"method": "POST", "url": url, "json": "{{ shaped }}"},
            },
            {
                "step_id": "think",
                "action": "agent_task",
                "config": {
                    "prompt": "Summarise for {{ inputs.team }}",
                    "model": TEST_MODEL,
                    "tools": ["http.request", "kv.get"],
                    "max_tokens": 100,
                    "max_iterations": 2,
                    "output_schema": {"type": "object"},
                },
            },
        ],
    }


async def _counts(app: Any) -> tuple[int, int]:
    async with app.state.sessionmaker() as session:
        runs = await session.scalar(select(func.count()).select_from(Run))
        usage = await session.scalar(select(func.count()).select_from(LlmUsage))
    return int(runs or 0), int(usage or 0)


async def preview(owner: Caller, automation_id: str, **body: Any) -> Any:
    return await owner.request("POST", owner.space_path(f"/automations/{automation_id}/preview"), json=body)


class TestPreview:
    async def test_a_saved_automation(self, app, factory: Factory, loopback: Loopback) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        name = f"preview-{uuid.uuid4().hex[:6]}"
        automation = await owner.create_automation(plan(f"{loopback.url}/count/{name}"))
        before = await _counts(app)
        response = await preview(owner, automation["id"], inputs={"team": "eng"})
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["inputs"] == {"team": "eng", "n": 2}, "defaults filled"
        shape, big, send, think = body["steps"]
        assert shape["when"] == {"decided": True, "value": True}
        assert shape["config"] == {"output": {"title": "Digest for eng", "count": 2}}
        assert shape["calls"] == []
        assert big["when"] == {"decided": True, "value": False}
        assert send["when"] == {"decided": False, "waits_for": ["shaped"]}
        assert send["config"] is None
        assert send["waits_for"] == ["shaped"]
        (post,) = send["calls"]
        assert (post["capability"], post["chosen_by"], post["mode"]) == (
            "http.request",
            "definition",
            "allow",
        )
        assert post["mode_source"] == "inferred_default"
        assert post["held_back_in"] == ["dry_run", "verify"]
        modes = {(call["capability"], call["chosen_by"]): call["mode"] for call in think["calls"]}
        assert modes == {("http.request", "agent"): "require_approval", ("kv.get", "agent"): "allow"}
        kv_get = next(call for call in think["calls"] if call["capability"] == "kv.get")
        assert kv_get["held_back_in"] == [], "a read runs in every mode"
        assert body["external_hosts"] == ["127.0.0.1"]
        (schedule,) = body["schedules"]
        fires = [datetime.fromisoformat(fire) for fire in schedule["next_fires"]]
        assert len(fires) == 5
        assert fires == sorted(fires)
        assert all(fire.hour in (7, 8) for fire in fires), "09:00 in Berlin is 07:00 or 08:00 UTC"
        cost = body["cost"]
        assert cost["basis"] == "llm_step_worst_case"
        assert cost["per_run_usd"] > 0
        assert cost["runs_per_month"] == 30
        assert cost["per_month_usd"] == round(cost["per_run_usd"] * 30, 4)
        assert await _counts(app) == before, "no run and no ledger entry"
        assert loopback.hits[name] == 0, "nothing was called"

    async def test_an_unsaved_definition(self, factory: Factory) -> None:
        owner = await factory.owner()
        document = {
            "name": "Unsaved",
            "triggers": [{"type": "webhook", "config": {}}],
            "plan": [
                {
                    "step_id": "say",
                    "action": "transform_data",
                    "config": {"output": "{{ trigger.who }} said {{ inputs.word | default('hi') }}"},
                }
            ],
        }
        response = await owner.request(
            "POST",
            owner.space_path("/automations/preview"),
            json={"definition": document, "trigger_payload": {"who": "Ada"}},
        )
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["steps"][0]["config"] == {"output": "Ada said hi"}
        assert body["schedules"] == []
        assert body["cost"] == {
            "per_run_usd": 0.0,
            "basis": "no_llm_steps_priced",
            "runs_per_month": None,
            "per_month_usd": None,
        }
        listed = (await owner.request("GET", owner.space_path("/automations"))).json()["items"]
        assert listed == [], "nothing was saved"

    async def test_a_template_error_is_shown_on_its_step(self, factory: Factory) -> None:
        owner = await factory.owner()
        document = {
            "name": "Broken at run time",
            "plan": [
                {
                    "step_id": "say",
                    "action": "transform_data",
                    "config": {"output": "{{ inputs.missing.deeper }}"},
                }
            ],
        }
        response = await owner.request(
            "POST", owner.space_path("/automations/preview"), json={"definition": document}
        )
        assert response.status_code == 200, response.text
        step = response.json()["steps"][0]
        assert step["config"] is None
        assert step["error"]["code"].startswith("template_")


class TestBadInput:
    async def test_a_definition_that_does_not_validate_is_422_with_its_problems(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        response = await owner.request(
            "POST",
            owner.space_path("/automations/preview"),
            json={"definition": {"name": "x", "plan": [{"step_id": "Bad Id", "action": "nope"}]}},
        )
        assert response.status_code == 422
        error = response.json()["error"]
        assert error["code"] == "invalid_definition"
        assert any(detail["path"].startswith("/definition/plan/0") for detail in error["details"])

    async def test_inputs_that_do_not_match_are_422(self, factory: Factory, loopback: Loopback) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation(plan(f"{loopback.url}/count/x"))
        response = await preview(owner, automation["id"], inputs={"n": "many"})
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "invalid_inputs"
        assert response.json()["error"]["details"][0]["path"] == "/inputs/n"

    async def test_another_space_and_bad_bodies(self, factory: Factory, loopback: Loopback) -> None:
        owner = await factory.owner()
        stranger = await factory.owner(space="Other")
        automation = await owner.create_automation(plan(f"{loopback.url}/count/x"))
        assert (await preview(stranger, automation["id"])).status_code == 404
        response = await stranger.request(
            "POST", owner.space_path(f"/automations/{automation['id']}/preview"), json={}
        )
        assert response.status_code == 404
        assert (await preview(owner, automation["id"], extra=1)).status_code == 422
        assert (await preview(owner, automation["id"], inputs=[1])).status_code == 422
