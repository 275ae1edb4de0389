"""Editing, refining, saving by a user, and drafts that change an existing automation."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from tests.support.drafts import draft_from, envelope, is_review, proposal, review_reply
from tests.support.factories import Caller
from tests.support.fake_llm import FakeLlm


async def _ready(owner: Caller, llm: FakeLlm, definition: dict[str, Any] | None = None) -> dict[str, Any]:
    llm.script(envelope(definition or proposal()), review_reply())
    response = await draft_from(owner)
    assert response.status_code == 201, response.text
    assert response.json()["status"] == "ready", response.text
    llm.reset()
    body: dict[str, Any] = response.json()
    return body


async def _automations(owner: Caller) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = (await owner.request("GET", owner.space_path("/automations"))).json()[
        "items"
    ]
    return items


class TestSave:
    async def test_saving_creates_a_paused_automation_marked_as_drafted_and_removes_the_draft(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        draft = await _ready(owner, llm)
        response = await owner.request("POST", owner.space_path(f"/drafts/{draft['id']}/save"))
        assert response.status_code == 201, response.text
        saved = response.json()
        assert saved["status"] == "paused"
        assert saved["version"] == 1
        assert saved["definition"]["metadata"]["created_from_nl"] is True
        assert saved["definition"]["plan"][1]["config"]["url"] == "https://hooks.example.com/eng"
        assert (await owner.request("GET", owner.space_path(f"/drafts/{draft['id']}"))).status_code == 404
        assert llm.requests == []  # saving asks no model

    async def test_saving_twice_makes_one_automation(self, owner: Caller, llm: FakeLlm) -> None:
        draft = await _ready(owner, llm)
        path = owner.space_path(f"/drafts/{draft['id']}/save")
        assert (await owner.request("POST", path)).status_code == 201
        second = await owner.request("POST", path)
        assert second.status_code == 404
        assert second.json()["error"]["code"] == "draft_not_found"
        assert len(await _automations(owner)) == 1

    async def test_a_draft_that_is_not_ready_is_not_saved_and_stays(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        llm.script(envelope(None, [{"question": "Which channel?"}]))
        draft = (await draft_from(owner)).json()
        response = await owner.request("POST", owner.space_path(f"/drafts/{draft['id']}/save"))
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "draft_not_ready"
        assert await _automations(owner) == []
        kept = await owner.request("GET", owner.space_path(f"/drafts/{draft['id']}"))
        assert kept.status_code == 200
        assert kept.json()["status"] == "needs_clarification"

    async def test_a_member_of_another_space_cannot_see_or_save_it(
        self, owner: Caller, llm: FakeLlm, nl_factory
    ) -> None:  # type: ignore[no-untyped-def]
        draft = await _ready(owner, llm)
        stranger = await nl_factory.owner("Elsewhere")
        for method, suffix in (("GET", ""), ("POST", "/save"), ("DELETE", ""), ("PUT", "")):
            kwargs = {"json": {"definition": proposal()}} if method == "PUT" else {}
            response = await stranger.request(
                method, stranger.space_path(f"/drafts/{draft['id']}{suffix}"), **kwargs
            )
            assert response.status_code == 404, (method, suffix)
            foreign = await stranger.request(
                method, owner.space_path(f"/drafts/{draft['id']}{suffix}"), **kwargs
            )
            assert foreign.status_code == 404, (method, suffix)
        assert (await owner.request("GET", owner.space_path(f"/drafts/{draft['id']}"))).status_code == 200
        assert await _automations(owner) == []


class TestEdit:
    async def test_an_invalid_edit_answers_its_problems_and_is_not_ready(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        draft = await _ready(owner, llm)
        broken = proposal()
        broken["plan"][1]["config"]["url"] = "http://169.254.169.254/"
        broken["plan"][0]["action"] = "nope"
        response = await owner.request(
            "PUT", owner.space_path(f"/drafts/{draft['id']}"), json={"definition": broken}
        )
        assert response.status_code == 200
        edited = response.json()
        assert edited["status"] == "failed"
        assert {p["code"] for p in edited["problems"]} >= {"unsafe_url", "unknown_action"}
        saving = await owner.request("POST", owner.space_path(f"/drafts/{draft['id']}/save"))
        assert saving.status_code == 409
        assert llm.requests == []

    async def test_an_edit_of_the_wrong_shape_is_stored_failed_and_reads_back(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        draft = await _ready(owner, llm)
        path = owner.space_path(f"/drafts/{draft['id']}")
        junk = {"name": "x", "goal": {"not": "text"}, "triggers": ["", 3], "plan": {"a": 1}, "execution": []}
        response = await owner.request("PUT", path, json={"definition": junk})
        assert response.status_code == 200, response.text
        assert response.json()["status"] == "failed"
        assert response.json()["problems"]
        again = await owner.request("GET", path)
        assert (again.status_code, again.json()["definition"]) == (200, junk)

    async def test_a_valid_edit_is_ready_with_fresh_flags_and_no_model_call(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        draft = await _ready(owner, llm)
        changed = proposal(name="Edited by hand")
        changed["plan"][0]["config"]["tools"] = ["http.request"]
        response = await owner.request(
            "PUT", owner.space_path(f"/drafts/{draft['id']}"), json={"definition": changed}
        )
        edited = response.json()
        assert edited["status"] == "ready"
        assert edited["summary"] is None
        assert "requires_approval" in [f["code"] for f in edited["flags"]]
        assert any("?review=true" in note for note in edited["notes"])
        assert llm.requests == []

    async def test_an_edit_with_review_asks_the_review_model(self, owner: Caller, llm: FakeLlm) -> None:
        draft = await _ready(owner, llm)
        llm.script(review_reply("A new summary."))
        response = await owner.request(
            "PUT",
            owner.space_path(f"/drafts/{draft['id']}?review=true"),
            json={"definition": proposal(name="B")},
        )
        assert response.json()["summary"] == "A new summary."
        assert len(llm.requests) == 1
        assert is_review(llm.requests[0])


class TestMessages:
    async def test_a_refinement_is_a_new_checked_proposal_with_a_diff(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        draft = await _ready(owner, llm)
        refined = proposal()
        refined["execution"] = {
            "on_failure": [{"step_id": "alert", "action": "notification", "config": {"title": "failed"}}]
        }
        llm.script(envelope(refined), review_reply("Now with an alert."))
        response = await owner.request(
            "POST",
            owner.space_path(f"/drafts/{draft['id']}/messages"),
            json={"message": "alert me if it fails"},
        )
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["status"] == "ready"
        assert body["turns"][-1] == "alert me if it fails"
        ops = body["diff"]["patch"]
        assert any(op["path"].startswith("/execution/on_failure") for op in ops)
        assert '+        "action": "notification"' in body["diff"]["unified"]
        sent_messages = llm.requests[0]["messages"]
        assert sent_messages[-1] == {"role": "user", "content": "alert me if it fails"}
        assert any(m["role"] == "assistant" and "hooks.example.com" in m["content"] for m in sent_messages)
        assert body["cost_usd"] > draft["cost_usd"]

    async def test_answers_to_questions_must_cover_each_one(self, owner: Caller, llm: FakeLlm) -> None:
        llm.script(envelope(None, [{"question": "Which URL?"}, {"question": "Which days?"}]))
        draft = (await draft_from(owner)).json()
        path = owner.space_path(f"/drafts/{draft['id']}/messages")
        partial = await owner.request("POST", path, json={"answers": {"q1": "https://hooks.example.com/eng"}})
        assert partial.status_code == 422
        assert [d["path"] for d in partial.json()["error"]["details"]] == ["/answers/q2"]
        llm.script(envelope(proposal()), review_reply())
        answered = await owner.request(
            "POST", path, json={"answers": {"q1": "https://hooks.example.com/eng", "q2": "weekdays"}}
        )
        assert answered.status_code == 200
        assert answered.json()["status"] == "ready"
        assert "weekdays" in llm.requests[-2]["messages"][-1]["content"]

    async def test_messages_on_an_expired_draft_are_404(
        self, authoring_app, owner: Caller, llm: FakeLlm
    ) -> None:  # type: ignore[no-untyped-def]
        draft = await _ready(owner, llm)
        store = authoring_app.state.drafts.store
        # Expire the key the way its TTL would.
        await store.redis.pexpire(f"{store.prefix}drafts:{owner.space_id}:{draft['id']}", 1)
        while await store.redis.exists(f"{store.prefix}drafts:{owner.space_id}:{draft['id']}"):
            await asyncio.sleep(0.01)
        response = await owner.request(
            "POST", owner.space_path(f"/drafts/{draft['id']}/messages"), json={"message": "weekly instead"}
        )
        assert response.status_code == 404
        assert llm.requests == []
        assert (await owner.request("GET", owner.space_path("/drafts"))).json()["items"] == []


class TestPatch:
    async def test_an_nl_change_is_a_reviewed_diff_saved_as_a_new_version(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        automation = await owner.create_automation(proposal())
        changed = copy.deepcopy(automation["definition"])
        changed["plan"][1]["config"]["url"] = "https://hooks.example.com/alerts"
        llm.script(envelope(changed), review_reply())
        response = await owner.request(
            "POST",
            owner.space_path(f"/automations/{automation['id']}/drafts"),
            json={"request": "post to the alerts hook instead"},
        )
        assert response.status_code == 201, response.text
        draft = response.json()
        assert draft["status"] == "ready"
        assert draft["automation_id"] == automation["id"]
        assert draft["base_version"] == 1
        assert draft["diff"]["patch"] == [
            {"op": "replace", "path": "/plan/1/config/url", "value": "https://hooks.example.com/alerts"}
        ]
        assert '-        "url": "https://hooks.example.com/eng"' in draft["diff"]["unified"]
        assert "hooks.example.com/eng" in str(llm.requests[0]["messages"])  # the current definition was sent

        saved = await owner.request("POST", owner.space_path(f"/drafts/{draft['id']}/save"))
        assert saved.status_code == 200, saved.text
        assert saved.json()["version"] == 2
        assert saved.json()["definition"]["plan"][1]["config"]["url"] == "https://hooks.example.com/alerts"
        assert saved.json()["definition"]["metadata"]["edited_from_nl"] is True

    async def test_saving_a_change_after_someone_else_saved_is_a_conflict(
        self, owner: Caller, llm: FakeLlm
    ) -> None:
        automation = await owner.create_automation(proposal())
        llm.script(envelope(proposal(name="Renamed")), review_reply())
        draft = (
            await owner.request(
                "POST",
                owner.space_path(f"/automations/{automation['id']}/drafts"),
                json={"request": "rename it"},
            )
        ).json()
        update = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{automation['id']}"),
            json={"definition": proposal(name="Meanwhile"), "version": 1},
        )
        assert update.status_code == 200
        response = await owner.request("POST", owner.space_path(f"/drafts/{draft['id']}/save"))
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "version_conflict"
        current = (await owner.request("GET", owner.space_path(f"/automations/{automation['id']}"))).json()
        assert current["name"] == "Meanwhile"
        assert current["version"] == 2
        assert (await owner.request("GET", owner.space_path(f"/drafts/{draft['id']}"))).status_code == 200

    async def test_an_automation_of_another_space_cannot_be_patched(
        self, owner: Caller, llm: FakeLlm, nl_factory
    ) -> None:  # type: ignore[no-untyped-def]
        automation = await owner.create_automation(proposal())
        stranger = await nl_factory.owner("Elsewhere")
        response = await stranger.request(
            "POST",
            stranger.space_path(f"/automations/{automation['id']}/drafts"),
            json={"request": "rename it"},
        )
        assert response.status_code == 404
        assert llm.requests == []
