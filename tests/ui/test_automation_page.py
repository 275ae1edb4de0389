"""The automation page in Chromium: action modes changed and saved, a preview of each step, a dry run
that holds its write back, steps and triggers added from the catalog, reordered and removed in the
form, a change in plain words reviewed as a diff, and the new controls with the keyboard alone."""

from __future__ import annotations

import json
import uuid
from functools import partial
from typing import Any

import pytest

from tests.support.browser import axe_violations, shot
from tests.support.drafts import envelope, review_reply
from tests.support.fake_llm import FakeLlm, error
from tests.support.loopback import Loopback
from tests.ui.conftest import Owner
from tests.ui.space_api import FIRST_MODEL_ANSWER_MS, new_member_token, space_api, wait_run_status
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)


# Answers are checked by each test: several expect a refusal.
_api = partial(space_api, check=False)


def _posting(url: str, name: str = "Post to the hook", step_id: str = "call") -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": name,
        "plan": [{"step_id": step_id, "action": "http_request", "config": {"method": "POST", "url": url}}],
    }


def _create(ui_base: str, owner: Owner, definition: dict[str, Any]) -> dict[str, Any]:
    response = _api(ui_base, owner, "POST", "/automations", json={"definition": definition})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def _open(page: Any, owner: Owner, automation: dict[str, Any]) -> None:
    sign_in(page, owner)
    page.goto(f"/automations/{automation['id']}")
    page.wait_for_selector(f"main h1:text-is('{automation['name']}')")


def _tab_to(page: Any, element_id: str, key: str = "Tab") -> None:
    for _ in range(300):
        page.keyboard.press(key)
        if page.evaluate("document.activeElement.id") == element_id:
            return
    raise AssertionError(f"#{element_id} is not reachable with {key}")


def test_an_action_mode_is_changed_saved_and_shown_as_effective(
    page: Any, owner: Owner, ui_base: str
) -> None:
    automation = _create(ui_base, owner, _posting("https://hooks.example.com/modes"))
    _open(page, owner, automation)
    row = page.locator("#modes-box tr[data-capability='http.request']")
    row.wait_for()
    assert "allow" in row.locator("td.effective").inner_text()
    assert "inferred default" in row.locator("td.effective").inner_text()
    assert "call" in row.inner_text(), "the row names the step that makes the call"

    row.locator("select").select_option("require_approval")
    page.click("#save-modes")
    page.wait_for_selector("#modes-result .ok")
    effective = page.locator("#modes-box tr[data-capability='http.request'] td.effective")
    effective.filter(has_text="this automation's override").wait_for()
    assert "require approval" in effective.inner_text()
    saved = _api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()
    assert saved["action_modes"] == {"http.request": "require_approval"}
    assert saved["version"] == 1, "modes are a policy, not a new version"
    assert not axe_violations(page), axe_violations(page)
    shot(page, "automation-action-modes")

    # A key that is no capability id or pattern is refused with its pointer; nothing changes.
    page.fill("#mode-new-key", "Not A Key!")
    page.click("#save-modes")
    refusal = page.locator("#modes-result .error[role='alert']")
    refusal.wait_for()
    assert "invalid_action_modes" in refusal.inner_text()
    assert "/modes/Not A Key!" in refusal.inner_text()
    again = _api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()
    assert again["action_modes"] == {"http.request": "require_approval"}
    # Editing the table makes the refusal stale: it goes.
    page.fill("#mode-new-key", "")
    refusal.wait_for(state="detached")

    # Back to no override: the effective mode is inferred again.
    page.locator("#modes-box tr[data-capability='http.request'] select").select_option("")
    page.click("#save-modes")
    page.locator("#modes-box tr[data-capability='http.request'] td.effective").filter(
        has_text="inferred default"
    ).wait_for()
    assert _api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()["action_modes"] == {}


def test_the_space_default_shows_until_an_override_wins_and_members_may_not_change_modes(
    page: Any, owner: Owner, ui_base: str
) -> None:
    automation = _create(ui_base, owner, _posting("https://hooks.example.com/space", "Space default"))
    space = _api(ui_base, owner, "PUT", "/action-modes", json={"modes": {"http.*": "deny", "h*": "allow"}})
    assert space.status_code == 200, space.text
    _open(page, owner, automation)
    row = page.locator("#modes-box tr[data-capability='http.request']")
    row.wait_for()
    assert row.locator("td").nth(1).inner_text() == "deny (http.*)", "the longest matching pattern"
    assert "space default" in row.locator("td.effective").inner_text()
    assert "deny" in row.locator("td.effective").inner_text()
    row.locator("select").select_option("allow")
    page.click("#save-modes")
    page.locator("#modes-box tr[data-capability='http.request'] td.effective").filter(
        has_text="this automation's override"
    ).wait_for()
    assert "deny" in page.locator("#modes-box tr[data-capability='http.request'] td").nth(1).inner_text()

    # A member sees the modes but may not change them: the refusal is shown and nothing changes.
    token = new_member_token(ui_base, owner)
    page.click("button:text-is('Sign out')")
    page.wait_for_selector("#email")
    page.click("summary:text-is('Use an API token instead')")
    page.fill("#token", token)
    page.click("form[aria-label='Sign in with an API token'] button[type=submit]")
    # Signing in again returns to the page that was open.
    page.wait_for_selector("main h1:text-is('Space default')")
    member_row = page.locator("#modes-box tr[data-capability='http.request']")
    member_row.locator("td.effective", has_text="this automation's override").wait_for()
    member_row.locator("select").select_option("deny")
    page.click("#save-modes")
    refusal = page.locator("#modes-result .error[role='alert']")
    refusal.wait_for()
    assert "role_insufficient" in refusal.inner_text()
    assert "needs admin" in refusal.inner_text()
    assert _api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()["action_modes"] == {
        "http.request": "allow"
    }


def test_preview_shows_each_step_and_a_dry_run_holds_the_write_back(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    hits = f"dry-{uuid.uuid4().hex[:6]}"
    automation = _create(ui_base, owner, _posting(f"{loopback.url}/count/{hits}", "Dry run me"))
    _open(page, owner, automation)

    page.fill("#tryout-inputs", "[1, 2]")
    page.click("#preview-button")
    page.locator("#tryout-result .error[role='alert']", has_text="must be a JSON object").wait_for()
    page.fill("#tryout-inputs", "{not json")
    page.click("#preview-button")
    page.locator("#tryout-result .error[role='alert']", has_text="not valid JSON").wait_for()

    page.fill("#tryout-inputs", "{}")
    page.click("#preview-button")
    step = page.locator("#preview-result .preview-step[data-step='call']")
    step.wait_for()
    assert "Preview of the saved version" in page.inner_text("#preview-result h3")
    assert f"/count/{hits}" in step.locator("pre").inner_text(), "the rendered config is shown"
    call = step.locator("tr[data-capability='http.request']")
    assert "allow" in call.inner_text()
    assert "held back in Dry run and Verify run" in call.inner_text()
    assert "none needed" in page.locator("#preview-result").inner_text()
    assert loopback.hits[hits] == 0, "a preview sends nothing"
    assert not axe_violations(page), axe_violations(page)
    shot(page, "automation-preview")

    page.click("#dry-run-button")
    link = page.locator("#tryout-run-link")
    link.wait_for()
    run_id = link.get_attribute("href").rsplit("/", 1)[-1]
    page.locator("#tryout-run-status [data-status='succeeded']").wait_for()
    run = wait_run_status(ui_base, owner, run_id, "succeeded")
    assert run["mode"] == "dry_run"
    assert loopback.hits[hits] == 0, "the dry run held the POST back"
    shot(page, "automation-dry-run")

    page.check("#tryout-skip-llm")
    page.click("#verify-run-button")
    page.locator(
        f"#tryout-run p:not([data-run='{run_id}']) #tryout-run-status [data-status='succeeded']"
    ).wait_for()
    verify_id = page.locator("#tryout-run-link").get_attribute("href").rsplit("/", 1)[-1]
    verified = wait_run_status(ui_base, owner, verify_id, "succeeded")
    assert (verified["mode"], verified["llm_mode"]) == ("verify", "skip")
    assert loopback.hits[hits] == 0, "a verify run holds external writes back too"
    link.click()
    page.wait_for_selector(f"main h1:text-is('Run {verify_id[:8]}')")
    assert page.url.endswith(f"/runs/{verify_id}")


def test_a_preview_that_needs_approval_says_so(page: Any, owner: Owner, ui_base: str) -> None:
    automation = _create(ui_base, owner, _posting("https://hooks.example.com/approve", "Held for a human"))
    modes = _api(
        ui_base,
        owner,
        "PUT",
        f"/automations/{automation['id']}/action-modes",
        json={"modes": {"http.*": "require_approval"}},
    )
    assert modes.status_code == 200, modes.text
    _open(page, owner, automation)
    page.click("#preview-button")
    call = page.locator("#preview-result tr[data-capability='http.request']")
    call.wait_for()
    assert "needs approval" in call.inner_text()
    assert "1 call would wait for approval" in page.locator("#preview-result").inner_text()
    # The pattern override is listed with the modes, editable although no call names it exactly.
    page.locator("#modes-box tr[data-capability='http.*']").wait_for()


def test_steps_and_triggers_are_added_from_the_catalog_moved_removed_and_saved(
    page: Any, owner: Owner, ui_base: str
) -> None:
    automation = _create(
        ui_base, owner, _posting("https://hooks.example.com/first", "Arrange me", step_id="http_request")
    )
    _open(page, owner, automation)
    page.locator("[data-section='/plan/0']").wait_for()
    options = page.locator("#add-step-kind option").evaluate_all("els => els.map(e => e.value)")
    assert {"http_request", "transform_data", "notification"} <= set(options), "the catalog's actions"

    page.select_option("#add-step-kind", "http_request")
    page.click("#add-step")
    added = page.locator("[data-section='/plan/1']")
    added.wait_for()
    assert "http_request_2" in added.locator("h3").first.inner_text(), "a fresh step id"
    assert page.evaluate("document.activeElement.id") == "plan-remove-1"

    # Saved without its URL: the problem is shown in that step's form and nothing is saved.
    page.click("#save-definition")
    problem = page.locator("[data-section='/plan/1'] .mark.problem").first
    problem.wait_for()
    assert "'url' is a required property" in problem.inner_text()
    refused = page.locator("#save-result .error[role='alert']")
    assert "/definition/plan/1/config" in refused.inner_text()
    assert _api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()["version"] == 1

    # Filling the field it names clears the refusal, beside the field and above the button.
    url = added.locator("input[name='root[config][url]']")
    url.fill("https://hooks.example.com/second")
    url.press("Tab")
    refused.wait_for(state="detached")
    assert page.locator(".mark.problem").count() == 0
    page.click("#plan-up-1")
    page.locator("[data-section='/plan/0'] h3", has_text="http_request_2").wait_for()
    assert page.evaluate("document.activeElement.id") == "plan-down-0", "focus follows the moved step"

    page.select_option("#add-trigger-kind", "webhook")
    page.click("#add-trigger")
    page.locator("[data-section='/triggers/0']").wait_for()
    page.click("#tab-json")
    as_json = json.loads(page.input_value("#json-view"))
    assert [s["step_id"] for s in as_json["plan"]] == ["http_request_2", "http_request"]
    assert [t["type"] for t in as_json["triggers"]] == ["webhook"]
    page.click("#tab-form")
    assert not axe_violations(page), axe_violations(page)
    shot(page, "automation-arranged")

    page.click("#save-definition")
    page.wait_for_selector("#version:text-is('version 2')")
    saved = _api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()
    assert [s["step_id"] for s in saved["definition"]["plan"]] == ["http_request_2", "http_request"]
    assert saved["definition"]["plan"][0]["config"]["url"] == "https://hooks.example.com/second"
    assert [t["type"] for t in saved["triggers"]] == ["webhook"]

    page.locator("[data-section='/plan/0']").wait_for()
    page.click("#plan-remove-0")
    page.locator("[data-section='/plan/1']").wait_for(state="detached")
    page.click("#triggers-remove-0")
    page.locator("[data-section='/triggers/0']").wait_for(state="detached")
    assert page.evaluate("document.activeElement.id") == "add-trigger-kind"
    page.click("#save-definition")
    page.wait_for_selector("#version:text-is('version 3')")
    final = _api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()
    assert [s["step_id"] for s in final["definition"]["plan"]] == ["http_request"]
    assert final["triggers"] == []


def test_a_refused_save_goes_problem_by_problem_as_the_fields_it_names_are_edited(
    page: Any, owner: Owner, ui_base: str
) -> None:
    automation = _create(ui_base, owner, _posting("https://hooks.example.com/first", "Two problems"))
    _open(page, owner, automation)
    for index in (1, 2):
        page.select_option("#add-step-kind", "http_request")
        page.click("#add-step")
        page.locator(f"[data-section='/plan/{index}']").wait_for()
    page.click("#save-definition")
    refused = page.locator("#save-result .error[role='alert']")
    refused.wait_for()
    assert "/definition/plan/1/config" in refused.inner_text()
    assert "/definition/plan/2/config" in refused.inner_text()

    # A field no problem names: both stay.
    name = page.locator("[data-section='/'] input[name='root[name]']")
    name.fill("Two problems, renamed")
    name.press("Tab")
    page.wait_for_function("() => document.getElementById('json-view').value.includes('renamed')")
    assert page.locator("[data-section='/plan/1'] .mark.problem").count() == 1
    assert "/definition/plan/1/config" in refused.inner_text()

    # One fixed: its problem goes from the box and its form, the other stays in both.
    first = page.locator("[data-section='/plan/1'] input[name='root[config][url]']")
    first.fill("https://hooks.example.com/one")
    first.press("Tab")
    page.locator("[data-section='/plan/1'] .mark.problem").wait_for(state="detached")
    assert "/definition/plan/1/config" not in refused.inner_text()
    assert "/definition/plan/2/config" in refused.inner_text()
    assert page.locator("[data-section='/plan/2'] .mark.problem").count() == 1
    assert not axe_violations(page), axe_violations(page)

    # Moving the step does not edit what the problem names: it follows its step and stays.
    page.click("#plan-up-2")
    page.locator("[data-section='/plan/1'] h3", has_text="http_request_2").wait_for()
    page.locator("[data-section='/plan/1'] .mark.problem").wait_for()
    assert page.locator("[data-section='/plan/2'] .mark.problem").count() == 0
    assert "/definition/plan/1/config" in refused.inner_text(), "the box names where the step is now"
    assert "/definition/plan/2/config" not in refused.inner_text()

    # The JSON view's edits count as well: the last one fixed there, the box is gone.
    page.click("#tab-json")
    edited = json.loads(page.input_value("#json-view"))
    edited["plan"][1].setdefault("config", {})["url"] = "https://hooks.example.com/two"
    page.fill("#json-view", json.dumps(edited, indent=2))
    refused.wait_for(state="detached")
    page.click("#tab-form")
    # The page also checks each edit with the server: its answer for the fixed definition marks nothing.
    page.wait_for_function("() => !document.querySelector('.mark.problem')")
    assert _api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()["version"] == 1


def test_a_change_in_words_is_a_diff_with_flags_that_can_be_discarded_or_applied(
    page: Any, owner: Owner, ui_base: str, fake_llm: FakeLlm
) -> None:
    definition = _posting("https://hooks.example.com/eng", "Change me")
    automation = _create(ui_base, owner, definition)
    changed = json.loads(json.dumps(automation["definition"]))
    changed["plan"][0]["config"]["url"] = "https://hooks.example.com/alerts"
    flag = {"path": "/plan/0/config/url", "message": "Is the alerts hook the right one?"}
    fake_llm.reset()
    fake_llm.script(envelope(changed), review_reply("Posts to the alerts hook.", flags=[flag]))
    try:
        _open(page, owner, automation)
        page.click("#propose-change")
        page.locator("#change-proposal .error[role='alert']", has_text="Say what should change").wait_for()

        page.fill("#change-request", "post to the alerts hook instead")
        page.click("#propose-change")
        proposal = page.locator("#change-proposal .proposal")
        proposal.wait_for(timeout=FIRST_MODEL_ANSWER_MS)
        assert proposal.locator(".diff .del", has_text="hooks.example.com/eng").count() == 1
        assert proposal.locator(".diff .add", has_text="hooks.example.com/alerts").count() == 1
        assert "Is the alerts hook the right one?" in proposal.locator(".flags").inner_text()
        assert "/plan/0/config/url" in proposal.locator(".flags").inner_text()
        assert not axe_violations(page), axe_violations(page)
        shot(page, "automation-change-proposal")
        page.click("#discard-change")
        page.locator("#change-proposal .ok", has_text="discarded").wait_for()
        assert _api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()["version"] == 1
        assert _api(ui_base, owner, "GET", "/drafts").json()["items"] == []

        # The model fails: the proposal says so and cannot be applied.
        fake_llm.reset()
        fake_llm.script(*[error(500, "model down")] * 4)
        page.click("#propose-change")
        failed = page.locator("#change-proposal .proposal[data-status='failed']")
        failed.wait_for()
        assert "could not turn this into a valid change" in failed.inner_text()
        assert page.locator("#apply-change").is_disabled()
        page.click("#discard-change")
        page.locator("#change-proposal .ok").wait_for()

        fake_llm.reset()
        fake_llm.script(envelope(changed), review_reply("Posts to the alerts hook."))
        page.click("#propose-change")
        page.locator("#change-proposal .proposal[data-status='ready']").wait_for()
        page.click("#apply-change")
        page.wait_for_selector("#version:text-is('version 2')")
        page.locator("#flash .ok", has_text="Change saved as version 2").wait_for()
        saved = _api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()
        assert saved["definition"]["plan"][0]["config"]["url"] == "https://hooks.example.com/alerts"
    finally:
        fake_llm.reset()


def test_the_new_controls_work_with_the_keyboard_alone(page: Any, owner: Owner, ui_base: str) -> None:
    automation = _create(ui_base, owner, _posting("https://hooks.example.com/keys", "Keyboard me"))
    _open(page, owner, automation)
    page.locator("#modes-box tr[data-capability='http.request']").wait_for()
    page.locator("[data-section='/plan/0']").wait_for()
    page.focus("main h1")

    # Add a step: Tab to the picker, choose with the arrow keys, Tab to the button, Enter.
    _tab_to(page, "add-step-kind")
    before = page.input_value("#add-step-kind")
    page.keyboard.press("ArrowDown")
    chosen = page.input_value("#add-step-kind")
    assert chosen != before
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "add-step"
    assert page.evaluate("getComputedStyle(document.activeElement, ':focus-visible').outlineStyle") != "none"
    page.keyboard.press("Enter")
    page.locator("[data-section='/plan/1']").wait_for()
    assert page.evaluate("document.activeElement.id") == "plan-remove-1"
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.id") == "plan-up-1"
    page.keyboard.press("Enter")
    page.locator("[data-section='/plan/0'] h3", has_text=f"({chosen})").wait_for()
    assert page.evaluate("document.activeElement.id") == "plan-down-0"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "plan-remove-0"
    page.keyboard.press("Enter")
    page.locator("[data-section='/plan/1']").wait_for(state="detached")
    assert page.evaluate("document.activeElement.id") == "plan-remove-0"

    # Change a mode and save it: Shift+Tab back up to the modes table.
    _tab_to(page, "mode-0", "Shift+Tab")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert page.input_value("#mode-0") == "require_approval"
    _tab_to(page, "save-modes")
    page.keyboard.press("Enter")
    page.locator("#modes-result .ok").wait_for()
    assert _api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()["action_modes"] == {
        "http.request": "require_approval"
    }

    # Preview with the keyboard.
    _tab_to(page, "preview-button", "Shift+Tab")
    page.keyboard.press("Enter")
    page.locator("#preview-result .preview-step[data-step='call']").wait_for()
    shot(page, "automation-keyboard")


def test_required_inputs_are_asked_for_before_modes_preview_and_dry_run(
    page: Any, owner: Owner, ui_base: str
) -> None:
    definition = _posting("https://hooks.example.com/{{ inputs.team }}", "Needs a team")
    definition["inputs"] = {
        "schema": {"type": "object", "required": ["team"], "properties": {"team": {"type": "string"}}}
    }
    automation = _create(ui_base, owner, definition)
    _open(page, owner, automation)
    hint = page.locator("#modes-preview-error")
    hint.wait_for()
    assert "Try it" in hint.inner_text()
    assert "null" not in page.inner_text("#modes-box")

    page.click("#dry-run-button")
    refusal = page.locator("#tryout-run .error[role='alert']")
    refusal.wait_for()
    assert "invalid_inputs" in refusal.inner_text()
    runs = _api(ui_base, owner, "GET", f"/runs?automation_id={automation['id']}").json()
    assert runs["items"] == [], "a refused dry run leaves no run"

    page.fill("#tryout-inputs", '{"team": "ops"}')
    page.click("#preview-button")
    step = page.locator("#preview-result .preview-step[data-step='call']")
    step.wait_for()
    assert "https://hooks.example.com/ops" in step.locator("pre").inner_text()
    # The preview made with inputs fills the modes table that could not be shown before.
    page.locator("#modes-box tr[data-capability='http.request'] td.effective", has_text="allow").wait_for()
    assert hint.count() == 0


def test_a_preview_shows_the_unsaved_edit_while_a_dry_run_runs_the_saved_version(
    page: Any, owner: Owner, ui_base: str
) -> None:
    automation = _create(ui_base, owner, _posting("https://hooks.example.com/saved", "Edit then try"))
    _open(page, owner, automation)
    url = page.locator("[data-section='/plan/0'] input[name='root[config][url]']")
    url.wait_for()
    url.fill("https://hooks.example.com/edited")
    url.press("Tab")
    page.click("#preview-button")
    result = page.locator("#preview-result")
    result.wait_for()
    assert "Preview of your unsaved edit" in result.locator("h3").inner_text()
    assert "https://hooks.example.com/edited" in result.locator(".preview-step pre").inner_text()

    # A broken edit is refused by the preview with its pointer; nothing is saved.
    url.fill("")
    url.press("Tab")
    page.click("#preview-button")
    refusal = page.locator("#tryout-result .error[role='alert']")
    refusal.wait_for()
    assert "invalid_definition" in refusal.inner_text()
    assert "/definition/plan/0/config" in refusal.inner_text()

    page.click("#dry-run-button")
    page.locator("#tryout-run", has_text="runs the saved version 1, not your unsaved edit").wait_for()
    run_id = page.locator("#tryout-run-link").get_attribute("href").rsplit("/", 1)[-1]
    run = _api(ui_base, owner, "GET", f"/runs/{run_id}").json()
    assert run["mode"] == "dry_run"
    assert run["automation_version"] == 1
    assert _api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()["version"] == 1


def test_the_new_page_draft_form_adds_a_step_checked_as_you_go(
    page: Any, owner: Owner, fake_llm: FakeLlm
) -> None:
    fake_llm.reset()
    fake_llm.script(
        envelope(_posting("https://hooks.example.com/draft", "Drafted")), review_reply("Posts once.")
    )
    try:
        sign_in(page, owner)
        page.goto("/automations/new")
        page.fill("#request", "Post once to the hook")
        page.click("#draft-button")
        page.wait_for_selector(".review-summary:has-text('Posts once.')")
        page.locator("[data-section='/plan/0']").wait_for()
        page.select_option("#add-step-kind", "http_request")
        page.click("#add-step")
        problem = page.locator("[data-section='/plan/1'] .mark.problem").first
        problem.wait_for()
        assert "'url' is a required property" in problem.inner_text()
        assert page.locator("#save-draft").is_disabled(), "an invalid draft cannot be saved"
        page.click("#plan-remove-1")
        page.locator("#draft-status", has_text="valid").wait_for()
        assert page.locator("#save-draft").is_enabled()
    finally:
        fake_llm.reset()
