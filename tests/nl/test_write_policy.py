"""Drafts whose writes a model chose are proposed with `write_policy: always_draft`; a person may switch."""

from __future__ import annotations

from typing import Any

from tests.support.drafts import draft_from, envelope, proposal, review_reply
from tests.support.factories import Caller
from tests.support.fake_llm import TEST_MODEL, FakeLlm


def read_only() -> dict[str, Any]:
    """A proposal that only reads: an HTTP GET."""
    return proposal(
        plan=[
            {
                "step_id": "fetch",
                "action": "http_request",
                "config": {"method": "GET", "url": "https://api.example.com/issues"},
            }
        ]
    )


def agent_with_tools(tools: list[str]) -> dict[str, Any]:
    step = proposal()["plan"][0]
    step["config"]["tools"] = tools
    return proposal(plan=[step])


async def drafted(owner: Caller, llm: FakeLlm, definition: dict[str, Any]) -> dict[str, Any]:
    llm.script(envelope(definition), review_reply())
    response = await draft_from(owner)
    assert response.status_code == 201, response.text
    draft: dict[str, Any] = response.json()
    assert draft["status"] == "ready", draft
    return draft


async def choose(owner: Caller, draft_id: str, body: Any) -> Any:
    return await owner.request("PUT", owner.space_path(f"/drafts/{draft_id}/write-policy"), json=body)


class TestProposed:
    async def test_a_tight_write_the_model_chose_is_proposed_as_always_draft(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        draft = await drafted(owner, llm, proposal())
        assert draft["definition"]["execution"]["write_policy"] == "always_draft"
        note = draft["write_policy"]
        assert (note["value"], note["chosen_by"], note["writes"]) == ("always_draft", "proposed", ["/plan/1"])
        assert "waits for a person's approval" in note["explanation"]
        assert "/plan/1" in note["explanation"]

    async def test_an_agent_with_write_tools_is_proposed_as_always_draft(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        draft = await drafted(owner, llm, agent_with_tools(["http.request"]))
        assert draft["write_policy"]["writes"] == ["/plan/0/config/tools/0"]
        assert draft["definition"]["execution"]["write_policy"] == "always_draft"

    async def test_a_proposal_that_only_reads_keeps_the_default(self, owner: Caller, llm: FakeLlm) -> None:
        draft = await drafted(owner, llm, read_only())
        assert draft["write_policy"] is None
        assert draft["definition"].get("execution", {}).get("write_policy") in (None, "auto_confirm_safe")


class TestSwitched:
    async def test_a_person_switches_it_and_the_choice_survives_a_new_proposal_and_the_save(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        draft = await drafted(owner, llm, proposal())
        llm.reset()
        switched = await choose(owner, draft["id"], {"write_policy": "auto_confirm_safe"})
        assert switched.status_code == 200, switched.text
        body = switched.json()
        assert body["definition"]["execution"]["write_policy"] == "auto_confirm_safe"
        assert (body["write_policy"]["value"], body["write_policy"]["chosen_by"]) == (
            "auto_confirm_safe",
            "human",
        )
        assert llm.requests == [], "switching asks no model"

        llm.script(envelope(proposal(name="Weekday issue digest")), review_reply())
        refined = await owner.request(
            "POST", owner.space_path(f"/drafts/{draft['id']}/messages"), json={"message": "call it a digest"}
        )
        assert refined.status_code == 200, refined.text
        assert refined.json()["definition"]["execution"]["write_policy"] == "auto_confirm_safe"

        saved = await owner.request("POST", owner.space_path(f"/drafts/{draft['id']}/save"))
        assert saved.status_code == 201, saved.text
        automation = await owner.request("GET", owner.space_path(f"/automations/{saved.json()['id']}"))
        assert automation.json()["definition"]["execution"]["write_policy"] == "auto_confirm_safe"

    async def test_a_hand_edit_of_the_policy_is_a_persons_choice(self, owner: Caller, llm: FakeLlm) -> None:
        draft = await drafted(owner, llm, proposal())
        edited = draft["definition"]
        edited["execution"]["write_policy"] = "auto_confirm_safe"
        response = await owner.request(
            "PUT", owner.space_path(f"/drafts/{draft['id']}"), json={"definition": edited}
        )
        assert response.status_code == 200, response.text
        assert response.json()["write_policy"]["chosen_by"] == "human"
        assert response.json()["definition"]["execution"]["write_policy"] == "auto_confirm_safe"

    async def test_bad_input_is_refused_with_a_code(self, owner: Caller, llm: FakeLlm) -> None:
        draft = await drafted(owner, llm, proposal())
        for body in ({"write_policy": "yolo"}, {}, {"write_policy": "always_draft", "extra": 1}, []):
            response = await choose(owner, draft["id"], body)
            assert response.status_code == 422, (body, response.text)
            assert response.json()["error"]["code"]
        missing = await choose(owner, "0" * 32, {"write_policy": "always_draft"})
        assert (missing.status_code, missing.json()["error"]["code"]) == (404, "draft_not_found")

    async def test_a_model_name_is_not_a_write(self, owner: Caller, llm: FakeLlm) -> None:
        draft = await drafted(owner, llm, agent_with_tools([]))
        assert draft["write_policy"] is None
        assert draft["definition"]["plan"][0]["config"]["model"] == TEST_MODEL
