"""The generator asks what the space has (a tool call to the model), and proposals naming what the space
does not have are refused with a pointer."""

from __future__ import annotations

import json
import uuid
from typing import Any

from tests.support.drafts import draft_from, envelope, is_review, proposal, review_reply
from tests.support.factories import Caller
from tests.support.fake_llm import FakeLlm, Reply, tool_call, tool_calls

SECRET_VALUE = "inventory-value-" + uuid.uuid4().hex


def posting_with_secret(name: str) -> dict[str, Any]:
    document = proposal()
    document["plan"][1]["config"]["headers"] = {"Authorization": {"$secret": name}}
    return document


def calling(capability: str) -> dict[str, Any]:
    step = {"step_id": "call", "action": "call_tool", "config": {"capability": capability, "args": {}}}
    return proposal(plan=[step])


def tool_answers(request: dict[str, Any]) -> list[Any]:
    return [json.loads(m["content"]) for m in request["messages"] if m.get("role") == "tool"]


def always(definition: dict[str, Any]) -> Any:
    def answer(request: dict[str, Any]) -> Reply:
        return review_reply() if is_review(request) else envelope(definition)

    return answer


class TestInventory:
    async def test_the_generator_asks_for_the_inventory_and_gets_names_only(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        put = await owner.request(
            "PUT", owner.space_path("/secrets/hook_token"), json={"value": SECRET_VALUE}
        )
        assert put.status_code == 201, put.text
        llm.script(
            tool_calls(tool_call("space_inventory", {"kinds": ["secrets", "connections", "mcp_tools"]})),
            envelope(posting_with_secret("hook_token")),
            review_reply(),
        )
        response = await draft_from(owner)
        assert response.status_code == 201, response.text
        draft = response.json()
        assert draft["status"] == "ready", draft
        assert draft["attempts"] == 1, "asking is not an attempt"

        first, second = llm.requests[0], llm.requests[1]
        assert [tool["function"]["name"] for tool in first["tools"]] == ["space_inventory"]
        assert tool_answers(second) == [{"secrets": ["hook_token"], "connections": [], "mcp_tools": []}]
        assert SECRET_VALUE not in json.dumps(llm.requests)

    async def test_bad_tool_calls_get_an_error_the_model_can_read(self, owner: Caller, llm: FakeLlm) -> None:
        llm.script(
            tool_calls(
                tool_call("space_inventory", {"kinds": ["passwords"]}, id="a"),
                tool_call("read_secret_values", {}, id="b"),
                tool_call("space_inventory", "not json", id="c"),
            ),
            envelope(proposal()),
            review_reply(),
        )
        response = await draft_from(owner)
        assert response.status_code == 201, response.text
        assert response.json()["status"] == "ready"
        answers = tool_answers(llm.requests[1])
        assert len(answers) == 3
        assert all(set(answer) == {"error"} for answer in answers), answers

    async def test_a_model_that_keeps_asking_is_offered_no_tool_after_two_rounds(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        ask = tool_calls(tool_call("space_inventory", {}))
        llm.script(ask, ask, envelope(proposal()), review_reply())
        response = await draft_from(owner)
        assert response.json()["status"] == "ready", response.text
        assert "tools" in llm.requests[1]
        assert not llm.requests[2].get("tools")


class TestReferences:
    async def test_a_capability_of_a_connection_the_space_lacks_is_refused_with_a_pointer(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        llm.answer_by(always(calling("zendesk.create_ticket")))
        response = await draft_from(owner)
        assert response.status_code == 201, response.text
        draft = response.json()
        assert draft["status"] == "failed"
        found = {(p["code"], p["path"]) for p in draft["problems"]}
        assert ("unknown_connection", "/plan/0/config/capability") in found
        message = next(p["message"] for p in draft["problems"] if p["code"] == "unknown_connection")
        assert "'zendesk'" in message

    async def test_a_secret_the_space_lacks_is_refused_with_a_pointer(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        llm.answer_by(always(posting_with_secret("nowhere_token")))
        draft = (await draft_from(owner)).json()
        assert draft["status"] == "failed"
        assert ("unknown_secret", "/plan/1/config/headers/Authorization/$secret") in {
            (p["code"], p["path"]) for p in draft["problems"]
        }

    async def test_a_native_capability_is_not_a_connection(self, owner: Caller, llm: FakeLlm) -> None:
        llm.script(envelope(calling("http.request")), review_reply())
        draft = (await draft_from(owner)).json()
        assert "unknown_connection" not in {p["code"] for p in draft["problems"]}
