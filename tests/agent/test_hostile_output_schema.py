"""An agent's output schema with backtracking patterns, against answers a model could give."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.backtracking import BACKTRACKING
from tests.support.factories import Factory
from tests.support.fake_llm import TEST_MODEL, FakeLlm, json_reply
from tests.support.runs import definition, start, wait_for


def _step(pattern: str) -> dict[str, Any]:
    schema = {
        "type": "object",
        "required": ["s"],
        "properties": {"s": {"type": "string", "pattern": pattern}},
    }
    return {
        "step_id": "think",
        "action": "agent_task",
        "config": {"prompt": "Answer.", "model": TEST_MODEL, "output_schema": schema},
        "output_as": "thought",
    }


@pytest.mark.parametrize(("pattern", "hostile"), BACKTRACKING[:4] + BACKTRACKING[-3:])
async def test_a_hostile_answer_fails_the_step_in_linear_time(
    factory: Factory, llm: FakeLlm, stack: Any, pattern: str, hostile: str
) -> None:
    # The worker checks the answer against the schema: on a backtracking engine it would hang there.
    owner = await factory.owner()
    llm.script(json_reply({"s": hostile}))
    _, run = await start(owner, definition(_step(pattern)))
    done = await wait_for(owner, run["id"], timeout=60)
    assert done["status"] == "failed"
    assert "does not match" in done["error"]["message"]


async def test_a_conforming_answer_passes(factory: Factory, llm: FakeLlm, stack: Any) -> None:
    owner = await factory.owner()
    llm.script(json_reply({"s": "aaaa"}))
    _, run = await start(owner, definition(_step(r"^(a+)+$")))
    done = await wait_for(owner, run["id"], timeout=60)
    assert done["status"] == "succeeded", done
    assert done["output"]["thought"] == {"s": "aaaa"}
