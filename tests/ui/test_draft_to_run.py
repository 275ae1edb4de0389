"""The main path, as a person takes it in Chromium: sign in, describe an automation, review the draft
(a flag beside its field; the proposed write policy, switched so the post runs without asking), change
a field in the generated form, save it paused, activate it, run it now and watch the run turn succeeded
on the runs page without reloading."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.browser import axe_violations, shot
from tests.support.drafts import envelope, review_reply
from tests.support.fake_llm import FakeLlm
from tests.support.loopback import Loopback
from tests.ui.conftest import Owner
from tests.ui.space_api import FIRST_MODEL_ANSWER_MS

# Browser and process start-up count against a test's time; two shared cores make them slow.
pytestmark = pytest.mark.timeout(300)


FLAG = "Is this the right hook?"


def _definition() -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": "Ping the team hook",
        "triggers": [{"type": "webhook", "config": {}}],
        "plan": [
            {
                "step_id": "post",
                "action": "http_request",
                "config": {
                    "method": "POST",
                    "url": "https://hooks.example.com/eng",
                    "json": {"text": "hello"},
                },
            }
        ],
    }


def sign_in(page: Any, owner: Owner) -> None:
    page.goto("/")
    page.wait_for_selector("#email")
    assert not axe_violations(page), axe_violations(page)
    shot(page, "sign-in")
    page.fill("#email", owner.email)
    page.fill("#password", owner.password)
    page.click("form[aria-label='Sign in with password'] button[type=submit]")
    page.wait_for_selector("main h1:text-is('Dashboard')")


def test_describe_review_edit_save_activate_run_live(
    page: Any, owner: Owner, fake_llm: FakeLlm, loopback: Loopback
) -> None:
    fake_llm.reset()
    fake_llm.script(
        envelope(_definition()),
        review_reply(
            "Posts hello to the team hook when called.",
            flags=[{"path": "/plan/0/config/url", "message": FLAG}],
        ),
    )
    sign_in(page, owner)
    page.goto("/automations")
    page.wait_for_selector(".list .empty")
    assert not axe_violations(page)
    shot(page, "automations-empty")

    page.click("a:text-is('New automation')")
    page.fill("#request", "When called, post hello to the team hook")
    page.click("#draft-button")
    page.wait_for_selector(".review-summary:has-text('Posts hello')", timeout=FIRST_MODEL_ANSWER_MS)
    step = page.locator("[data-section='/plan/0']")
    url_field = step.locator("input[name='root[config][url]']")
    url_field.wait_for()
    # The flag sits inside the form control of the field it points at, not in a list elsewhere.
    flag = step.locator(".mark.flag", has_text=FLAG)
    flag.wait_for()
    # Checked in the page, retried until it holds: the form may re-render once after loading, which
    # replaces the nodes a handle taken a moment earlier would point at.
    page.wait_for_function(
        """([section, text]) => {
            const step = document.querySelector(`[data-section='${section}']`);
            const input = step && step.querySelector("input[name='root[config][url]']");
            const notes = step ? [...step.querySelectorAll(".mark.flag")] : [];
            const note = notes.find((n) => n.textContent.includes(text));
            return Boolean(input && note && note.parentElement && note.parentElement.contains(input));
        }""",
        arg=["/plan/0", FLAG],
    )
    assert not axe_violations(page)
    shot(page, "draft-review")

    # The model chose the post, so the draft proposes that writes wait for approval; this person lets
    # the saved post run without asking.
    assert "waits for a person's approval" in page.inner_text(".write-policy-explanation")
    assert page.input_value("#write-policy") == "always_draft"
    page.select_option("#write-policy", "auto_confirm_safe")
    page.wait_for_selector("label[for='write-policy']:has-text('your choice')")
    assert page.input_value("#write-policy") == "auto_confirm_safe"
    assert not axe_violations(page)
    url_field = page.locator("[data-section='/plan/0'] input[name='root[config][url]']")

    new_url = f"{loopback.url}/ok/ui-hook"
    url_field.fill(new_url)
    url_field.press("Tab")
    page.wait_for_selector("#draft-status:has-text('valid')")
    page.click("#tab-json")
    assert new_url in page.locator("#json-view").input_value()
    page.click("#tab-form")

    page.click("#save-draft")
    page.wait_for_selector("text=Saved, paused")
    page.wait_for_selector(".badge[data-status='paused']")
    assert new_url in str(page.locator("#json-view").input_value())
    assert not axe_violations(page)
    shot(page, "automation-saved")

    page.click("#do-activate")
    page.wait_for_selector(".heading .badge[data-status='active']")

    page.evaluate("window.__sameDocument = true")
    page.click("#run-now")
    page.wait_for_selector("#live-state[data-state='live']")
    page.wait_for_selector("#runs-table .badge[data-status='succeeded']", timeout=60_000)
    assert page.evaluate("window.__sameDocument === true"), "the runs page updated without a reload"
    assert loopback.hits["ui-hook"] >= 1
    assert not axe_violations(page)
    shot(page, "runs-live")

    page.click("#runs-table a[href^='/runs/']")
    page.wait_for_selector(".timeline .step")
    assert "post" in page.locator(".timeline").inner_text()
    assert not axe_violations(page)
    shot(page, "run-detail")
