"""An agent's tool calls under the cascade: one allowed, one denied, one approved after a worker restart.

The model (the loopback OpenAI-protocol server) must be called exactly as often as without the pause,
and the spending recorded once per model call.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from decimal import Decimal
from typing import Any

import psutil
from sqlalchemy import select

from app.persistence.models import LlmUsage
from tests.governed.helpers import name
from tests.support.approvals import decide, set_modes, the_approval
from tests.support.factories import Factory
from tests.support.fake_llm import TEST_MODEL, FakeLlm, json_reply, tool_call, tool_calls
from tests.support.loopback import Loopback
from tests.support.runs import fire, wait_for

SUMMARY = {"type": "object", "required": ["done"], "properties": {"done": {"type": "boolean"}}}


def agent_document(tools: list[str]) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": "Agent under approval",
        "plan": [
            {
                "step_id": "think",
                "action": "agent_task",
                "config": {
                    "prompt": "Do three things.",
                    "model": TEST_MODEL,
                    "tools": tools,
                    "output_schema": SUMMARY,
                },
                "output_as": "thought",
            }
        ],
    }


async def test_allow_deny_and_approve_after_a_worker_restart(
    app: Any, factory: Factory, fake_llm: FakeLlm, loopback: Loopback, stack: Any
) -> None:
    worker, _beat = stack
    fake_llm.reset()
    owner = await factory.owner()
    hits = name("agent-approved")
    await set_modes(owner, {"notify.send": "allow"})  # the space lets agents notify
    automation = await owner.create_automation(agent_document(["notify.send", "slack.*", "http.*"]))
    await set_modes(owner, {"slack.*": "deny"}, automation["id"])
    fake_llm.script(
        tool_calls(
            tool_call("notify__send", {"title": "started"}, id="c1"),
            tool_call(
                "slack__post_message", {"channel": "#ops", "text": "hi", "token": "xoxb-not-real"}, id="c2"
            ),
            tool_call("http__request", {"method": "POST", "url": f"{loopback.url}/count/{hits}"}, id="c3"),
        ),
        json_reply({"done": True}, prompt_tokens=40, completion_tokens=6),
    )
    run = await fire(owner, automation["id"])
    waiting = await wait_for(owner, run["id"], {"awaiting_approval"}, timeout=60)
    assert len(fake_llm.requests) == 1
    assert loopback.hits[hits] == 0
    approval = await the_approval(owner, run["id"])
    assert (approval["capability"], approval["chosen_by"]) == ("http.request", "agent")
    assert approval["mode_source"] == "inferred_default"
    by_capability = {i["capability"]: i for i in waiting["invocations"]}
    assert by_capability["notify.send"]["status"] == "executed"
    assert (
        by_capability["slack.post_message"]["status"],
        by_capability["slack.post_message"]["denied_reason"],
    ) == (
        "denied",
        "policy",
    )
    assert by_capability["slack.post_message"]["params"]["token"] != "xoxb-not-real", "params are redacted"

    # The worker's processes die while the run waits: nothing of the run lived there.
    for child in psutil.Process(worker.process.pid).children(recursive=True):
        child.kill()
    await asyncio.sleep(1)
    assert (await decide(owner, approval["id"], "approve")).status_code == 200
    done = await wait_for(owner, run["id"], timeout=90)
    assert done["status"] == "succeeded", [(s["attempt"], s["status"], s["error"]) for s in done["steps"]]
    assert done["output"]["thought"] == {"done": True}
    assert loopback.hits[hits] == 1
    assert len(fake_llm.requests) == 2, "no model call repeated after the pause"

    fed_back = {
        m["tool_call_id"]: json.loads(m["content"])
        for m in fake_llm.requests[1]["messages"]
        if m["role"] == "tool"
    }
    assert "result" in fed_back["c1"]
    assert fed_back["c2"]["error"]["code"] == "action_denied"
    assert fed_back["c3"]["result"]["status_code"] == 200
    notes = (await owner.request("GET", owner.space_path("/notifications"))).json()["items"]
    assert sorted(n["title"] for n in notes) == ["Approval needed: http.request", "started"]

    async with app.state.sessionmaker() as session:
        ledger = list(
            (await session.scalars(select(LlmUsage).where(LlmUsage.run_id == uuid.UUID(run["id"])))).all()
        )
    assert len(ledger) == 2, "each model call is counted once"
    assert Decimal(str(done["cost_usd"])) == sum((row.cost_usd for row in ledger), Decimal(0))
    statuses = sorted((i["capability"], i["status"]) for i in done["invocations"])
    assert statuses == [
        ("http.request", "executed"),
        ("notify.send", "executed"),
        ("slack.post_message", "denied"),
    ]
