"""A draft cannot choose where a model call goes: an endpoint-like field or a model the operator did not
allow in a proposal is a problem with its pointer, never a destination."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.drafts import draft_from, envelope, proposal
from tests.support.factories import Caller
from tests.support.fake_llm import FakeLlm


@pytest.fixture
def decoy() -> Iterator[FakeLlm]:
    with FakeLlm() as server:
        yield server


async def test_a_proposal_naming_a_model_endpoint_or_a_stranger_model_fails_with_pointers(
    owner: Caller, llm: FakeLlm, decoy: FakeLlm
) -> None:
    broken = proposal()
    broken["plan"][0]["config"]["api_base"] = decoy.base_url
    broken["plan"].append(
        {
            "step_id": "ask",
            "action": "llm_complete",
            "config": {"model": "ollama/llama3", "messages": [{"role": "user", "content": "hi"}]},
        }
    )
    llm.script(envelope(broken), envelope(broken), envelope(broken))

    draft = (await draft_from(owner)).json()

    assert draft["status"] == "failed"
    errors = [p for p in draft["problems"] if p["severity"] == "error"]
    problems = {(p["code"], p["path"]) for p in errors}
    assert problems == {("invalid_config", "/plan/0/config"), ("model_not_allowed", "/plan/2/config/model")}
    [extra] = [p for p in errors if p["code"] == "invalid_config"]
    assert "api_base" in extra["message"]
    assert decoy.requests == []
    assert len(llm.requests) == 3  # the generator's attempts only: no review, no call of the proposal


async def test_an_edited_draft_cannot_name_a_model_endpoint_either(
    owner: Caller, llm: FakeLlm, decoy: FakeLlm
) -> None:
    llm.script(envelope(proposal()), envelope(proposal()))
    draft = (await draft_from(owner)).json()
    edited = proposal()
    edited["plan"][0]["config"]["base_url"] = decoy.base_url
    response = await owner.request(
        "PUT", owner.space_path(f"/drafts/{draft['id']}"), json={"definition": edited}
    )
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "failed"
    [problem] = [p for p in response.json()["problems"] if p["severity"] == "error"]
    assert (problem["code"], problem["path"]) == ("invalid_config", "/plan/0/config")
    assert "base_url" in problem["message"]
    saving = await owner.request("POST", owner.space_path(f"/drafts/{draft['id']}/save"))
    assert saving.status_code == 409
    assert decoy.requests == []
