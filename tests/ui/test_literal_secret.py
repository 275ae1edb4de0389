"""A credential written into a definition, in Chromium: the automation page warns beside the field and
offers an admin to move it into a secret (the literal becomes a reference); a member sees the warning
but gets no offer; a draft edited by hand gets the same offer."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest

from tests.support.browser import axe_violations
from tests.support.drafts import envelope, proposal, review_reply
from tests.support.fake_llm import FakeLlm
from tests.ui.conftest import Owner
from tests.ui.space_api import FIRST_MODEL_ANSWER_MS, new_member_token, space_api
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)

_api = partial(space_api, check=False)
LIVE_KEY = "sk-live-4f9c2b7e1d8a6035c9e2"
HEADER = "/plan/0/config/headers/Authorization"


def _with_literal(name: str) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": name,
        "plan": [
            {
                "step_id": "post",
                "action": "http_request",
                "config": {
                    "method": "POST",
                    "url": "https://hooks.example.com/x",
                    "headers": {"Authorization": f"Bearer {LIVE_KEY}"},
                },
            }
        ],
    }


def _warning(page: Any) -> Any:
    # The literal's warning; a secret bound to no host has a warning of its own at the same place.
    return page.locator(f".mark[data-path='{HEADER}']", has_text="looks like a credential")


def test_an_admin_moves_a_literal_into_a_secret_from_the_automation_page(
    page: Any, owner: Owner, ui_base: str
) -> None:
    created = _api(ui_base, owner, "POST", "/automations", json={"definition": _with_literal("Literal")})
    assert created.status_code == 201, created.text
    automation = created.json()
    sign_in(page, owner)
    page.goto(f"/automations/{automation['id']}")
    warning = _warning(page)
    warning.wait_for()
    assert "looks like a credential" in warning.inner_text()
    assert LIVE_KEY not in warning.inner_text()
    assert page.input_value(".secret-name") == "post_authorization"
    assert not axe_violations(page), axe_violations(page)

    page.fill(".secret-name", "Not A Name")
    page.click("button.move-secret")
    warning.locator("[role='alert']").wait_for()
    assert _api(ui_base, owner, "GET", "/secrets/post_authorization").status_code == 404

    # A name taken by another secret is refused: moving never replaces a secret in use.
    taken = _api(ui_base, owner, "PUT", "/secrets/in_use", json={"value": "kept-as-it-was"})
    assert taken.status_code == 201, taken.text
    page.fill(".secret-name", "in_use")
    page.click("button.move-secret")
    warning.locator("[role='alert']", has_text="exists already").wait_for()
    assert LIVE_KEY in page.input_value("#json-view"), "nothing moved"

    page.fill(".secret-name", "hook_token")
    page.click("button.move-secret")
    warning.wait_for(state="detached")
    shown = json.loads(page.input_value("#json-view"))
    assert shown["plan"][0]["config"]["headers"]["Authorization"] == {"$secret": "hook_token"}
    assert LIVE_KEY not in page.input_value("#json-view")
    assert _api(ui_base, owner, "GET", "/secrets/hook_token").status_code == 200

    page.click("#save-definition")
    page.locator("#version", has_text="version 2").wait_for()
    saved = _api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()
    assert saved["definition"]["plan"][0]["config"]["headers"]["Authorization"] == {"$secret": "hook_token"}
    assert page.locator(".mark[data-path^='/plan/0/config/headers']", has_text="credential").count() == 0
    assert not page.errors  # type: ignore[attr-defined]


def test_a_check_answering_meanwhile_keeps_the_typed_name_and_the_refusal(
    page: Any, owner: Owner, ui_base: str
) -> None:
    """The checks beside the fields answer again after every edit. A warning they find again is left as
    it is: the secret's name being typed, and the refusal shown under it, stay."""
    created = _api(ui_base, owner, "POST", "/automations", json={"definition": _with_literal("Typing")})
    assert created.status_code == 201, created.text
    sign_in(page, owner)
    page.goto(f"/automations/{created.json()['id']}")
    warning = _warning(page)
    warning.wait_for()
    page.fill(".secret-name", "Not A Name")
    page.click("button.move-secret")
    warning.locator("[role='alert']").wait_for()

    # An edit of another field: its check finds the same warning.
    url = page.locator("[data-section='/plan/0'] input[name='root[config][url]']")
    url.click()
    page.keyboard.press("End")
    page.keyboard.type("?edited=1")
    with page.expect_response(
        lambda response: (
            "/automations/validate" in response.url and "edited=1" in (response.request.post_data or "")
        )
    ) as checked:
        # The field's change is taken when the field is left.
        page.keyboard.press("Tab")
    assert "literal_secret" in checked.value.text()
    # The page draws an answer as soon as it arrives; a second is far more than it needs.
    page.wait_for_timeout(1000)
    assert page.input_value(".secret-name") == "Not A Name"
    assert warning.locator("[role='alert']").is_visible()


def test_a_member_sees_the_warning_without_an_offer(page: Any, owner: Owner, ui_base: str) -> None:
    created = _api(ui_base, owner, "POST", "/automations", json={"definition": _with_literal("Seen")})
    assert created.status_code == 201, created.text
    member_token = new_member_token(ui_base, owner)
    page.goto("/")
    page.wait_for_selector("#email")
    page.click("summary:text-is('Use an API token instead')")
    page.fill("#token", member_token)
    page.click("form[aria-label='Sign in with an API token'] button[type=submit]")
    page.wait_for_selector("main h1:text-is('Dashboard')")
    page.goto(f"/automations/{created.json()['id']}")
    _warning(page).wait_for()
    assert page.locator("button.move-secret").count() == 0


def test_a_hand_edited_draft_offers_the_move_too(
    page: Any, owner: Owner, ui_base: str, fake_llm: FakeLlm
) -> None:
    fake_llm.reset()
    fake_llm.script(envelope(proposal()), review_reply())
    sign_in(page, owner)
    page.goto("/automations/new")
    page.fill("#request", "Every weekday at 9, summarise new issues and post them")
    page.click("#draft-button")
    page.wait_for_selector("#save-draft", timeout=FIRST_MODEL_ANSWER_MS)
    page.click("#tab-json")
    edited = json.loads(page.input_value("#json-view"))
    edited["plan"][1]["config"]["headers"] = {"Authorization": f"Bearer {LIVE_KEY}"}
    page.fill("#json-view", json.dumps(edited, indent=2))
    page.click("#tab-form")
    offer = page.locator(".mark[data-path='/plan/1/config/headers/Authorization'] button.move-secret")
    offer.wait_for()
    page.fill(".mark[data-path='/plan/1/config/headers/Authorization'] .secret-name", "draft_hook_token")
    offer.click()
    page.wait_for_function("() => document.getElementById('json-view').value.includes('draft_hook_token')")
    assert LIVE_KEY not in page.input_value("#json-view")
    assert _api(ui_base, owner, "GET", "/secrets/draft_hook_token").status_code == 200
    fake_llm.reset()
