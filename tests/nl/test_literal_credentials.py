"""Credentials written into a definition: flagged where they are saved, never sent to a model."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.support.drafts import draft_from, envelope, is_review, proposal, review_reply, sent
from tests.support.factories import Caller
from tests.support.fake_llm import FakeLlm

LIVE_KEY = "sk-live-4f9c2b7e1d8a6035c9e2"
AUTH_POINTER = "/plan/1/config/headers/Authorization"


def _with_literal(**changes: Any) -> dict[str, Any]:
    definition = proposal(**changes)
    definition["plan"][1]["config"]["headers"] = {"Authorization": f"Bearer {LIVE_KEY}"}
    return definition


def _literal_warnings(body: dict[str, Any]) -> list[str]:
    return [w["path"] for w in body["warnings"] if w["code"] == "literal_secret"]


class TestSaveFlagsLiterals:
    async def test_saving_a_literal_bearer_token_answers_a_warning_with_its_pointer(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        response = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": _with_literal()}
        )
        assert response.status_code == 201, response.text
        assert _literal_warnings(response.json()) == [AUTH_POINTER]
        assert all(LIVE_KEY not in w["message"] for w in response.json()["warnings"])

    async def test_validate_answers_the_same_warning_and_a_secret_reference_none(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        path = owner.space_path("/automations/validate")
        literal = (await owner.request("POST", path, json={"definition": _with_literal()})).json()
        assert literal["valid"] is True
        assert _literal_warnings(literal) == [AUTH_POINTER]
        referenced = _with_literal()
        referenced["plan"][1]["config"]["headers"] = {"Authorization": {"$secret": "hook_token"}}
        clean = (await owner.request("POST", path, json={"definition": referenced})).json()
        assert _literal_warnings(clean) == []

    async def test_templates_and_ordinary_headers_are_not_flagged(self, owner: Caller, llm: FakeLlm) -> None:
        definition = proposal()
        definition["plan"][1]["config"]["headers"] = {
            "Authorization": "Bearer {{ inputs.token }}",
            "X-Request-Id": "a1b2c3d4e5f6g7h8i9",
            "Content-Type": "application/json",
        }
        body = (
            await owner.request(
                "POST", owner.space_path("/automations/validate"), json={"definition": definition}
            )
        ).json()
        assert _literal_warnings(body) == []

    async def test_a_key_in_a_query_string_is_flagged_at_the_url(self, owner: Caller, llm: FakeLlm) -> None:
        definition = proposal()
        definition["plan"][1]["config"]["url"] = "https://hooks.example.com/eng?api_key=9f8e7d6c5b4a39281706"
        body = (
            await owner.request(
                "POST", owner.space_path("/automations/validate"), json={"definition": definition}
            )
        ).json()
        assert _literal_warnings(body) == ["/plan/1/config/url"]

    # Python's `re` took quadratic time on these (minutes at this size): the detector runs on RE2.
    @pytest.mark.timeout(60)
    @pytest.mark.parametrize("hostile", ["eyJ" * 200_000, "eyJa" * 150_000])
    async def test_hostile_text_is_checked_in_linear_time(
        self, owner: Caller, llm: FakeLlm, hostile: str
    ) -> None:
        definition = proposal()
        definition["plan"][1]["config"]["headers"] = {"X-Api-Key": hostile}
        response = await owner.request(
            "POST", owner.space_path("/automations/validate"), json={"definition": definition}
        )
        assert response.status_code == 200, response.text


class TestNothingReachesAModel:
    async def test_an_nl_change_does_not_send_the_saved_literal(self, owner: Caller, llm: FakeLlm) -> None:
        automation = await owner.create_automation(_with_literal())
        changed = copy.deepcopy(automation["definition"])
        changed["name"] = "Renamed"
        llm.script(envelope(changed), review_reply())
        response = await owner.request(
            "POST",
            owner.space_path(f"/automations/{automation['id']}/drafts"),
            json={"request": "rename it"},
        )
        assert response.status_code == 201, response.text
        assert llm.requests, "the model was asked"
        assert LIVE_KEY not in sent(llm)
        assert "hooks.example.com/eng" in sent(llm)  # the rest of the definition was sent
        draft = response.json()
        assert any(AUTH_POINTER in note for note in draft["notes"])

    async def test_a_proposal_keeping_the_cut_marker_cannot_be_saved_and_is_not_retried(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        automation = await owner.create_automation(_with_literal())
        echoed = copy.deepcopy(automation["definition"])
        echoed["name"] = "Renamed"
        echoed["plan"][1]["config"]["headers"]["Authorization"] = "Bearer [credential removed]"
        llm.script(envelope(echoed), envelope(echoed), envelope(echoed))
        response = await owner.request(
            "POST",
            owner.space_path(f"/automations/{automation['id']}/drafts"),
            json={"request": "rename it"},
        )
        assert response.status_code == 201, response.text
        draft = response.json()
        assert draft["status"] == "failed"
        assert [(p["code"], p["path"]) for p in draft["problems"] if p["severity"] == "error"] == [
            ("credential_removed", AUTH_POINTER)
        ]
        assert len(llm.requests) == 1, "the model cannot bring a credential back: no second attempt"
        saving = await owner.request("POST", owner.space_path(f"/drafts/{draft['id']}/save"))
        assert saving.status_code == 409

    async def test_a_hand_edited_literal_is_not_sent_to_the_review_or_the_next_turn(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        llm.script(envelope(proposal()), review_reply())
        draft = (await draft_from(owner)).json()
        llm.reset()
        llm.script(review_reply())
        edited = await owner.request(
            "PUT",
            owner.space_path(f"/drafts/{draft['id']}"),
            params={"review": "true"},
            json={"definition": _with_literal()},
        )
        assert edited.status_code == 200, edited.text
        body = edited.json()
        assert body["status"] == "failed"
        assert [p["path"] for p in body["problems"] if p["code"] == "literal_secret"] == [AUTH_POINTER]
        llm.script(envelope(proposal()), review_reply())
        refined = await owner.request(
            "POST",
            owner.space_path(f"/drafts/{draft['id']}/messages"),
            json={"message": "post at 10 instead"},
        )
        assert refined.status_code == 200, refined.text
        assert llm.requests, "the model was asked"
        assert LIVE_KEY not in sent(llm)

    async def test_the_review_of_a_patch_does_not_see_the_literal(self, owner: Caller, llm: FakeLlm) -> None:
        automation = await owner.create_automation(_with_literal())
        changed = copy.deepcopy(automation["definition"])
        changed["name"] = "Renamed"
        llm.script(envelope(changed), review_reply())
        await owner.request(
            "POST",
            owner.space_path(f"/automations/{automation['id']}/drafts"),
            json={"request": "rename it"},
        )
        reviews = [request for request in llm.requests if is_review(request)]
        assert all(LIVE_KEY not in str(request) for request in reviews)
