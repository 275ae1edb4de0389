"""Template fields in Chromium: the code editor used with the keyboard alone (completion of the run
context accepted with Enter and Tab, a filter from the palette, Escape to leave, no list opening after
it), the typed template saved; the server's template check shown under the field and gone once the
template is fixed, and an answer to a check that a later edit made stale left unshown; a plain field
that gets a template becomes an editor."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

from tests.support.browser import axe_violations
from tests.ui.conftest import Owner
from tests.ui.space_api import space_api
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)

TELL = "[data-section='/plan/1']"
EDITOR = f"{TELL} .template-editor .cm-content"
SUGGESTIONS = ".cm-tooltip-autocomplete"


def _definition(title: str) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": "Greet the customer",
        "inputs": {"schema": {"type": "object", "properties": {"customer": {"type": "string"}}}},
        "plan": [
            {
                "step_id": "fetch",
                "action": "http_request",
                "config": {"method": "GET", "url": "https://hooks.example.com/customer"},
                "output_as": "fetched",
            },
            {"step_id": "tell", "action": "notification", "config": {"title": title}},
        ],
    }


def _open(page: Any, owner: Owner, ui_base: str, title: str) -> dict[str, Any]:
    automation: dict[str, Any] = space_api(
        ui_base, owner, "POST", "/automations", json={"definition": _definition(title)}
    ).json()
    sign_in(page, owner)
    page.goto(f"/automations/{automation['id']}")
    page.wait_for_selector(f"main h1:text-is('{automation['name']}')")
    page.locator(EDITOR).wait_for()
    return automation


def _focused(page: Any, script: str) -> Any:
    return page.evaluate(f"() => {{ const el = document.activeElement; return {script}; }}")


def _accept(page: Any, key: str, accepted: str) -> None:
    """Accept the selected suggestion with `key` (Enter). The editor ignores an accepting key for a moment
    after the list opens or changes (so a fast typist does not pick by accident); in a one-line field an
    Enter it ignored leaves the list open and the text unchanged, and is pressed again."""
    deadline = time.monotonic() + 15
    while True:
        page.keyboard.press(key)
        if accepted in page.locator(EDITOR).inner_text():
            return
        assert time.monotonic() < deadline, page.locator(EDITOR).inner_text()
        assert page.locator(SUGGESTIONS).is_visible(), "the suggestion list closed without accepting"


def _tab_until(page: Any, script: str) -> None:
    for _ in range(300):
        page.keyboard.press("Tab")
        if _focused(page, script):
            return
    raise AssertionError(f"no element where {script} is reachable with Tab")


def _caret_before_the_closing_braces(page: Any) -> None:
    page.keyboard.press("End")
    for _ in range(len(" }}")):
        page.keyboard.press("ArrowLeft")


def _saved_title(ui_base: str, owner: Owner, automation: dict[str, Any]) -> tuple[int, str]:
    saved = space_api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()
    return saved["version"], saved["definition"]["plan"][1]["config"]["title"]


def test_a_template_is_written_with_the_keyboard_completion_and_the_filter_palette(
    page: Any, owner: Owner, ui_base: str
) -> None:
    automation = _open(page, owner, ui_base, "Hello {{ inputs.customer }}")
    assert page.locator(f"{TELL} input[name='root[config][title]']").is_hidden()
    assert page.locator(f"{EDITOR} span", has_text="{{").count() == 1, "the delimiters are highlighted"

    # Focus with Tab, the caret after `customer`, a filter from the palette by keyboard.
    _tab_until(page, "el.classList.contains('cm-content') && !!el.closest(\"[data-section='/plan/1']\")")
    _caret_before_the_closing_braces(page)
    page.keyboard.press("Escape")
    assert _focused(page, "el.tagName") == "SUMMARY", "Escape leaves the editor for its filter palette"
    page.keyboard.press("Enter")
    _tab_until(page, "el.dataset.filter === 'upper'")
    assert "upper" in _focused(page, "el.textContent")
    page.keyboard.press("Enter")
    assert _focused(page, "el.classList.contains('cm-content')"), "back in the editor"
    assert page.locator(EDITOR).inner_text() == "Hello {{ inputs.customer|upper }}"

    # Completion: a step's output (Enter), then a field of its action's output schema (Tab).
    page.keyboard.press("End")
    page.keyboard.type(" got {{ fet")
    page.locator(SUGGESTIONS, has_text="fetched").wait_for()
    _accept(page, "Enter", "{{ fetched")
    page.keyboard.type(".sta")
    page.locator(SUGGESTIONS, has_text="status_code").wait_for()
    assert not axe_violations(page), axe_violations(page)
    page.keyboard.press("Tab")
    page.keyboard.type(" }}")
    expected = "Hello {{ inputs.customer|upper }} got {{ fetched.status_code }}"
    assert page.locator(EDITOR).inner_text() == expected
    page.keyboard.press("Escape")
    assert _focused(page, "el.tagName") == "SUMMARY"

    # The form and the JSON view hold the edit; saving stores it.
    page.wait_for_function(
        "(text) => JSON.parse(document.getElementById('json-view').value).plan[1].config.title === text",
        arg=expected,
    )
    page.click("#save-definition")
    page.locator("p.ok", has_text="Saved as version 2").wait_for()
    assert _saved_title(ui_base, owner, automation) == (2, expected)
    page.locator(EDITOR, has_text="fetched.status_code").wait_for()


def test_the_template_check_is_shown_under_the_field_until_the_template_is_fixed(
    page: Any, owner: Owner, ui_base: str
) -> None:
    automation = _open(page, owner, ui_base, "Hello {{ inputs.customer }}")
    page.click(EDITOR)
    _caret_before_the_closing_braces(page)
    page.keyboard.type("|shout")
    page.wait_for_function("() => document.getElementById('json-view').value.includes('|shout')")
    page.click("#save-definition")
    problem = page.locator(f"{TELL} .mark.problem", has_text="unknown filter 'shout'")
    problem.wait_for()
    described = page.locator(EDITOR).get_attribute("aria-describedby") or ""
    assert problem.get_attribute("id") in described.split(), "the editor names the problem"
    assert not axe_violations(page), axe_violations(page)
    assert _saved_title(ui_base, owner, automation) == (1, "Hello {{ inputs.customer }}")

    # Fixed: the note goes at once (before any save), and the fixed template saves.
    page.click(EDITOR)
    _caret_before_the_closing_braces(page)
    for _ in range(len("shout")):
        page.keyboard.press("Backspace")
    page.keyboard.type("trim")
    problem.wait_for(state="detached")

    # A plain field becomes an editor once a template is typed into it, and typing goes on there.
    url = page.locator("[data-section='/plan/0'] input[name='root[config][url]']")
    url.click()
    page.keyboard.press("End")
    page.keyboard.type("?who={{")
    url.wait_for(state="hidden")
    page.keyboard.type(" inputs.customer }}")
    assert _focused(page, "el.classList.contains('cm-content')")
    page.click("#save-definition")
    page.locator("p.ok", has_text="Saved as version 2").wait_for()
    assert _saved_title(ui_base, owner, automation) == (2, "Hello {{ inputs.customer|trim }}")
    saved = space_api(ui_base, owner, "GET", f"/automations/{automation['id']}").json()
    assert saved["definition"]["plan"][0]["config"]["url"] == (
        "https://hooks.example.com/customer?who={{ inputs.customer }}"
    )

    # An edit in the JSON view shows in the editor.
    page.click("#tab-json")
    edited = json.loads(page.input_value("#json-view"))
    edited["plan"][1]["config"]["title"] = "Bye {{ inputs.customer }}"
    page.fill("#json-view", json.dumps(edited, indent=2))
    page.click("#tab-form")
    page.locator(EDITOR, has_text="Bye {{ inputs.customer }}").wait_for()


def _held_check(page: Any, held: list[Any], text: str) -> Any:
    """The held check whose definition holds `text`, once the page has sent it."""
    deadline = time.monotonic() + 20
    while True:
        found = [route for route in held if text in (route.request.post_data or "")]
        if found:
            return found[-1]
        assert time.monotonic() < deadline, [route.request.post_data for route in held]
        page.wait_for_timeout(100)


def test_a_check_answered_after_a_later_edit_is_left(page: Any, owner: Owner, ui_base: str) -> None:
    """The check beside the fields answers for the definition it was sent. Its answer coming back after
    a later edit's (a slow server, a busy proxy) does not bring back a problem the edit fixed."""
    _open(page, owner, ui_base, "Hello {{ inputs.customer }}")
    held: list[Any] = []

    def hold(route: Any) -> None:
        held.append(route)

    page.route(re.compile(r".*/automations/validate$"), hold)
    page.click(EDITOR)
    _caret_before_the_closing_braces(page)
    page.keyboard.type("|shout")
    stale = _held_check(page, held, "|shout")

    for _ in range(len("shout")):
        page.keyboard.press("Backspace")
    page.keyboard.type("trim")
    # The stale answer arrives before the edit's own check is sent (that waits for typing to pause).
    with page.expect_response(lambda response: response.request == stale.request) as answered:
        stale.continue_()
    assert "unknown filter 'shout'" in answered.value.text(), "the stale check did find the problem"
    # The page reads an answer as soon as it arrives; a second is far more than it needs.
    page.wait_for_timeout(1000)
    assert page.locator(f"{TELL} .mark.problem").count() == 0

    # The edit's own check, once answered, finds nothing.
    page.keyboard.press("Escape")
    fresh = _held_check(page, held, "|trim")
    with page.expect_response(lambda response: response.request == fresh.request) as answered:
        fresh.continue_()
    assert answered.value.json()["errors"] == []
    page.wait_for_timeout(1000)
    assert page.locator(f"{TELL} .mark.problem").count() == 0
    assert page.locator(EDITOR).inner_text() == "Hello {{ inputs.customer|trim }}"


def test_escape_before_the_suggestions_come_leaves_no_list_behind(
    page: Any, owner: Owner, ui_base: str
) -> None:
    """Escape pressed right after typing (the suggestions not yet shown) leaves the editor, and the list
    does not open afterwards in the editor no one is typing in."""
    _open(page, owner, ui_base, "Hello {{ inputs.customer }}")
    page.click(EDITOR)
    _caret_before_the_closing_braces(page)
    page.keyboard.type("|t")
    for _ in range(5):
        # Each letter typed starts a query for suggestions; Escape right after it leaves the editor.
        page.keyboard.type("r")
        page.keyboard.press("Escape")
        if _focused(page, "el.tagName") == "SUMMARY":
            break
        # On a busy machine the list can come before Escape does, which then only closes it: again.
        page.keyboard.press("Backspace")
    assert _focused(page, "el.tagName") == "SUMMARY"
    # The suggestions would come a moment after typing; a second is far more than they need.
    page.wait_for_timeout(1000)
    assert page.locator(SUGGESTIONS).count() == 0
    # Back in the editor, suggestions come as before.
    page.click(EDITOR)
    _caret_before_the_closing_braces(page)
    page.keyboard.type("i")
    page.locator(SUGGESTIONS, has_text="trim").wait_for()
