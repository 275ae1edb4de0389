"""Re-prompting: invalid proposals go back with their problems; hostile or broken ones never get ready."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.drafts import draft_from, envelope, is_review, proposal, review_reply, sent
from tests.support.factories import Caller
from tests.support.fake_llm import FakeLlm, reply

LEAKED_KEY = "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2"


def _with_step_config(**config: Any) -> dict[str, Any]:
    definition = proposal()
    definition["plan"][1]["config"].update(config)
    return definition


def _sandbox_escape() -> dict[str, Any]:
    return _with_step_config(json={"text": "{{ summary.__class__.__mro__ }}"})


def _unknown_capability() -> dict[str, Any]:
    definition = proposal()
    definition["plan"][0]["config"]["tools"] = ["crm.delete_everything"]
    return definition


def _metadata_target() -> dict[str, Any]:
    return _with_step_config(url="http://169.254.169.254/latest/meta-data/iam")


def _pasted_secret() -> dict[str, Any]:
    return _with_step_config(headers={"Authorization": f"Bearer {LEAKED_KEY}"})


def _generate_requests(llm: FakeLlm) -> list[dict[str, Any]]:
    return [request for request in llm.requests if not is_review(request)]


class TestReprompting:
    async def test_an_invalid_proposal_is_sent_back_with_its_pointers_and_fixed(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        broken = proposal()
        broken["plan"][1]["action"] = "fax_send"
        llm.script(envelope(broken), envelope(proposal()), review_reply())
        draft = (await draft_from(owner)).json()
        assert draft["status"] == "ready"
        assert draft["attempts"] == 2
        follow_up = _generate_requests(llm)[1]["messages"][-1]["content"]
        assert "/plan/1/action" in follow_up
        assert "unknown_action" in follow_up
        assert len(llm.requests) == 3
        assert is_review(llm.requests[2])

    async def test_a_proposal_that_never_becomes_valid_fails_after_the_last_attempt(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        broken = proposal()
        broken["plan"][0]["output_as"] = "trigger"
        llm.script(envelope(broken), envelope(broken), envelope(broken))
        draft = (await draft_from(owner)).json()
        assert draft["status"] == "failed"
        assert draft["attempts"] == 3
        assert "reserved_name" in [p["code"] for p in draft["problems"] if p["severity"] == "error"]
        assert draft["summary"] is None
        assert draft["flags"] == []
        assert len(llm.requests) == 3  # no review of a failed proposal
        assert draft["cost_usd"] > 0

    @pytest.mark.parametrize(
        ("hostile", "code", "path"),
        [
            (_sandbox_escape, "unsafe_access", "/plan/1/config/json/text"),
            # No connection has the prefix `crm` either: both say so at the same pointer.
            (_unknown_capability, "unknown_capability unknown_connection", "/plan/0/config/tools/0"),
            (_metadata_target, "unsafe_url", "/plan/1/config/url"),
            (_pasted_secret, "literal_secret", "/plan/1/config/headers/Authorization"),
        ],
    )
    async def test_hostile_proposals_never_become_ready(
        self, owner: Caller, llm: FakeLlm, hostile: Any, code: str, path: str
    ) -> None:
        llm.script(*(envelope(hostile()) for _ in range(3)))
        draft = (await draft_from(owner)).json()
        assert draft["status"] == "failed"
        blocking = [p for p in draft["problems"] if p["severity"] == "error"]
        assert {p["path"] for p in blocking} == {path}
        assert {p["code"] for p in blocking} == set(code.split())
        # What went back to the model names the pointer and never repeats a pasted credential.
        follow_ups = [r["messages"][-1]["content"] for r in _generate_requests(llm)[1:]]
        assert len(follow_ups) == 2
        assert all(path in text for text in follow_ups)
        assert LEAKED_KEY not in json.dumps(draft)
        assert all(LEAKED_KEY not in text for text in follow_ups)

    async def test_a_hostile_proposal_then_a_clean_one_is_ready(self, owner: Caller, llm: FakeLlm) -> None:
        llm.script(envelope(_pasted_secret()), envelope(proposal()), review_reply())
        draft = (await draft_from(owner)).json()
        assert draft["status"] == "ready"
        assert "headers" not in draft["definition"]["plan"][1]["config"]

    async def test_malformed_json_is_reprompted(self, owner: Caller, llm: FakeLlm) -> None:
        llm.script(reply('{"definition": {"name": "x", '), envelope(proposal()), review_reply())
        draft = (await draft_from(owner)).json()
        assert draft["status"] == "ready"
        assert draft["attempts"] == 2
        assert "not_json" in _generate_requests(llm)[1]["messages"][-1]["content"]

    async def test_garbage_every_time_fails_with_its_reason(self, owner: Caller, llm: FakeLlm) -> None:
        llm.script(reply("Sure! Here you go."), reply("[1, 2, 3]"), reply(""))
        draft = (await draft_from(owner)).json()
        assert draft["status"] == "failed"
        assert draft["definition"] is None
        assert [p["code"] for p in draft["problems"]] == ["empty_answer"]

    async def test_a_huge_answer_is_refused_and_not_echoed_back(self, owner: Caller, llm: FakeLlm) -> None:
        huge = proposal(description="x" * 3000, metadata={"padding": ["y" * 1000] * 300})
        llm.script(envelope(huge), envelope(proposal()), review_reply())
        draft = (await draft_from(owner)).json()
        assert draft["status"] == "ready"
        second = _generate_requests(llm)[1]["messages"]
        assert "answer_too_large" in second[-1]["content"]
        assert second[-2] == {"role": "assistant", "content": second[-2]["content"]}
        assert "previous answer omitted" in second[-2]["content"]
        assert len(json.dumps(second)) < 200_000

    async def test_a_timeout_fails_the_draft_and_says_so(self, owner: Caller, llm: FakeLlm) -> None:
        llm.script(envelope(proposal(), delay=10))
        draft = (await draft_from(owner)).json()
        assert draft["status"] == "failed"
        assert [p["code"] for p in draft["problems"]] == ["llm_unavailable"]
        assert draft["attempts"] == 1

    async def test_the_generator_is_told_the_allowed_models_and_no_provider_settings(
        self, owner: Caller, llm: FakeLlm, authoring_settings
    ) -> None:  # type: ignore[no-untyped-def]
        llm.script(envelope(proposal()), review_reply())
        await draft_from(owner)
        assert '\\"models\\":[\\"openai/test-model\\"]' in sent(llm)
        assert authoring_settings.llm_models["openai/test-model"]["api_base"] not in sent(llm)
