"""A claim that lost the run while its agent was thinking asks nobody to approve anything.

The run is taken from the first claim while the model's answer (a call that needs approval) is on its
way. That claim must not leave an approval behind that no claim waits for, nor a pause a later claim
would resume; the claim that gets the run after recovery asks once, and the approved call runs once.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from sqlalchemy import select, update

from app.persistence.models import ActionInvocation, Run, RunStep
from tests.governed.helpers import name
from tests.governed.test_agent_approvals import SUMMARY
from tests.support.approvals import decide, pending_approvals
from tests.support.factories import Factory
from tests.support.fake_llm import TEST_MODEL, FakeLlm, json_reply, tool_call, tool_calls
from tests.support.loopback import Loopback
from tests.support.runs import fire, wait_for

THINKING_SECONDS = 3.0


def _document() -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": "Agent whose claim is taken over",
        "plan": [
            {
                "step_id": "think",
                "action": "agent_task",
                # The interrupted attempt is retried once by the claim that takes the run over.
                "max_retries": 1,
                "config": {
                    "prompt": "Post one thing.",
                    "model": TEST_MODEL,
                    "tools": ["http.*"],
                    "output_schema": SUMMARY,
                },
                "output_as": "thought",
            }
        ],
    }


async def _wait_until(condition: Any, timeout: float = 30) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


async def test_a_claim_taken_over_mid_step_asks_for_no_approval(
    app: Any, factory: Factory, fake_llm: FakeLlm, loopback: Loopback, stack: Any
) -> None:
    fake_llm.reset()
    owner = await factory.owner()
    hits = name("taken-over")
    automation = await owner.create_automation(_document())
    post = tool_call("http__request", {"method": "POST", "url": f"{loopback.url}/count/{hits}"}, id="c1")
    fake_llm.script(
        # The first claim's answer arrives only after the run was taken from it.
        tool_calls(post, delay=THINKING_SECONDS),
        tool_calls(post),
        json_reply({"done": True}),
    )
    run = await fire(owner, automation["id"])
    run_id = uuid.UUID(run["id"])

    async def first_claim_is_thinking() -> bool:
        return len(fake_llm.requests) == 1

    await _wait_until(first_claim_is_thinking)
    async with app.state.sessionmaker() as session, session.begin():
        # What a takeover does to the first claim: its attempt is no longer the run's, and its lease is
        # gone, so recovery hands the run to a new claim.
        await session.execute(
            update(Run)
            .where(Run.id == run_id)
            .values(attempt=Run.attempt + 1, lease_expires_at=Run.created_at)
        )

    waiting = await wait_for(owner, run["id"], {"awaiting_approval"}, timeout=60)
    [approval] = await pending_approvals(owner, run_id=run["id"])
    assert approval["capability"] == "http.request"
    async with app.state.sessionmaker() as session:
        calls = list(
            (await session.scalars(select(ActionInvocation).where(ActionInvocation.run_id == run_id))).all()
        )
        steps = list((await session.scalars(select(RunStep).where(RunStep.run_id == run_id))).all())
    # One request for a decision: the second claim's. The first claim's answer came too late to ask.
    assert [(c.status, c.call_key.split("/")[2]) for c in calls] == [("pending", "2")]
    assert sorted((s.attempt, s.status) for s in steps) == [(1, "failed"), (2, "suspended")]
    assert next(s for s in steps if s.attempt == 1).error["code"] == "interrupted"
    assert waiting["status"] == "awaiting_approval"

    assert (await decide(owner, approval["id"], "approve")).status_code == 200
    done = await wait_for(owner, run["id"], timeout=60)
    assert done["status"] == "succeeded", done
    assert done["output"]["thought"] == {"done": True}
    assert loopback.hits[hits] == 1, "the approved call ran once"
    assert len(fake_llm.requests) == 3
