"""Spending bounded by default, on the real stack with the scripted provider: the daily cap stops a run
at its next model call, an agent that the day cannot afford is refused at fire, caps above the
operator's maximum and agent HTTP grants without hosts are refused at save, and the preview shows
the caps in effect."""

from __future__ import annotations

import copy
import uuid
from typing import Any

from sqlalchemy import update

from app.persistence.models import Automation, AutomationVersion
from tests.agent.test_agent_task import agent_step
from tests.support.factories import Caller, Factory
from tests.support.fake_llm import FakeLlm, json_reply, reply, tool_call
from tests.support.runs import definition, fire, start, wait_for


async def _allow_tools(owner: Caller) -> None:
    modes = {"modes": {"http.*": "allow", "notify.send": "allow"}}
    assert (await owner.request("PUT", owner.space_path("/action-modes"), json=modes)).status_code == 200


async def _save(owner: Caller, document: dict[str, Any]) -> Any:
    return await owner.request("POST", owner.space_path("/automations"), json={"definition": document})


async def _preview(owner: Caller, automation_id: str) -> dict[str, Any]:
    response = await owner.request("POST", owner.space_path(f"/automations/{automation_id}/preview"), json={})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


class TestDailyCapMidRun:
    async def test_the_run_stops_at_its_next_model_call(self, factory: Factory, llm: FakeLlm, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        await _allow_tools(owner)
        # Two turns of 10 tokens fit the day up front; the first turn then costs $0.00051, past the cap.
        llm.script(
            reply(
                None,
                tool_calls=[tool_call("notify__send", {"title": "x"})],
                prompt_tokens=10,
                completion_tokens=250,
            ),
            json_reply({"summary": "never asked", "count": 1}),
        )
        _, run = await start(
            owner,
            definition(
                agent_step(tools=["notify.send"], max_tokens=10, max_iterations=2),
                execution={"cost_cap_daily_usd": 0.0005},
            ),
        )
        done = await wait_for(owner, run["id"], timeout=60)
        assert done["status"] == "failed"
        assert done["error"]["code"] == "daily_budget_exceeded"
        assert len(llm.requests) == 1, "the second model call was never made"
        assert llm.remaining == 1

    async def test_a_spent_day_refuses_the_next_fire(self, factory: Factory, llm: FakeLlm, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        llm.script(json_reply({"summary": "s", "count": 1}, prompt_tokens=10, completion_tokens=250))
        automation_id, run = await start(
            owner,
            definition(agent_step(max_iterations=1, max_tokens=10), execution={"cost_cap_daily_usd": 0.0005}),
        )
        assert (await wait_for(owner, run["id"]))["status"] == "succeeded"
        second = await fire(owner, automation_id)
        assert second["status"] == "dropped"
        assert second["reason"].startswith("daily_cost_cap_reached")


class TestEstimateAtFire:
    async def test_an_agent_the_day_cannot_afford_is_refused(
        self, factory: Factory, llm: FakeLlm, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        # About $5.5 at the test prices: 50 turns, each resending a 2,000-token prompt and what the earlier
        # turns added, over the operator's $1 default for the day.
        step = agent_step(prompt="Read this. " * 700, max_iterations=50, max_tokens=4096)
        _, run = await start(owner, definition(step))
        assert run["status"] == "dropped"
        assert run["reason"].startswith("budget_exceeded: its LLM steps could cost $")
        assert "left of today's $1.0000 cap" in run["reason"]
        assert llm.requests == []

    async def test_a_small_agent_is_accepted(self, factory: Factory, llm: FakeLlm, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        llm.script(json_reply({"summary": "fine", "count": 1}))
        _, run = await start(owner, definition(agent_step(max_iterations=2, max_tokens=100)))
        assert run["status"] in ("pending", "running", "succeeded")
        assert (await wait_for(owner, run["id"]))["status"] == "succeeded"


class TestSave:
    async def test_a_cap_above_the_maximum_is_refused(self, factory: Factory) -> None:
        owner = await factory.owner()
        document = definition(
            agent_step(), execution={"cost_cap_daily_usd": 100.01, "max_llm_tokens": 2_000_001}
        )
        response = await _save(owner, document)
        assert response.status_code == 422
        details = {(d["path"], d["code"]) for d in response.json()["error"]["details"]}
        assert details == {
            ("/definition/execution/cost_cap_daily_usd", "cap_above_maximum"),
            ("/definition/execution/max_llm_tokens", "cap_above_maximum"),
        }

    async def test_an_agent_http_grant_without_hosts_is_refused(self, factory: Factory) -> None:
        owner = await factory.owner()
        document = definition(
            agent_step(tools=["http.request"]), execution={"tool_grants": [{"capability": "http.*"}]}
        )
        response = await _save(owner, document)
        assert response.status_code == 422
        (detail,) = response.json()["error"]["details"]
        assert (detail["path"], detail["code"]) == (
            "/definition/execution/tool_grants/0",
            "grant_hosts_required",
        )

    async def test_any_host_said_out_loud_saves_with_a_warning(self, factory: Factory) -> None:
        owner = await factory.owner()
        grants = [{"capability": "http.request", "hosts": ["*"]}]
        document = definition(agent_step(tools=["http.request"]), execution={"tool_grants": grants})
        response = await _save(owner, document)
        assert response.status_code == 201, response.text
        warnings = {(w["path"], w["code"]) for w in response.json()["warnings"]}
        assert ("/execution/tool_grants/0/hosts", "grant_any_host") in warnings


class TestStoredAndPreviewed:
    async def test_preview_shows_the_caps_in_effect(self, factory: Factory) -> None:
        owner = await factory.owner()
        defaults = await owner.create_automation(definition(agent_step()))
        caps = (await _preview(owner, defaults["id"]))["caps"]
        assert caps == {
            "daily_cost_usd": {"value": 1.0, "source": "operator_default", "maximum": 100.0},
            "run_tokens": {"value": 200_000, "source": "operator_default", "maximum": 2_000_000},
        }
        own = await owner.create_automation(
            definition(agent_step(), execution={"cost_cap_daily_usd": 0.25, "max_llm_tokens": 5000})
        )
        caps = (await _preview(owner, own["id"]))["caps"]
        assert caps["daily_cost_usd"] == {"value": 0.25, "source": "automation", "maximum": 100.0}
        assert caps["run_tokens"] == {"value": 5000, "source": "automation", "maximum": 2_000_000}

    async def test_a_stored_grant_without_hosts_keeps_loading_as_any_host(
        self, app, factory: Factory, llm: FakeLlm, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        grants = [{"capability": "http.request", "hosts": ["127.0.0.1"]}, {"capability": "kv.*"}]
        step = agent_step(tools=["http.request"], max_iterations=1, max_tokens=50)
        automation = await owner.create_automation(definition(step, execution={"tool_grants": grants}))
        # As saved before hosts were required: the grant names http.request and no hosts.
        old = copy.deepcopy(automation["definition"])
        del old["execution"]["tool_grants"][0]["hosts"]
        automation_id = uuid.UUID(automation["id"])
        async with app.state.sessionmaker() as session:
            await session.execute(
                update(Automation).where(Automation.id == automation_id).values(definition=old)
            )
            await session.execute(
                update(AutomationVersion)
                .where(AutomationVersion.automation_id == automation_id)
                .values(definition=old)
            )
            await session.commit()

        loaded = await owner.request("GET", owner.space_path(f"/automations/{automation['id']}"))
        assert loaded.status_code == 200
        assert "hosts" not in loaded.json()["definition"]["execution"]["tool_grants"][0]
        warnings = (await _preview(owner, automation["id"]))["warnings"]
        assert [(w["path"], w["code"], w["severity"]) for w in warnings] == [
            ("/execution/tool_grants/0/hosts", "grant_any_host", "warning")
        ]
        llm.script(json_reply({"summary": "still runs", "count": 1}))
        await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
        run = await fire(owner, automation["id"])
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        assert done["output"]["thought"] == {"summary": "still runs", "count": 1}
