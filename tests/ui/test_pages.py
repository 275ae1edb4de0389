"""Every page in Chromium: reachable by URL, an accessible state (axe: no serious or critical
violations), a screenshot; a version conflict shown with a diff; an expired session back at sign-in;
the draft flow with the keyboard alone."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from app.persistence.db import create_engine
from tests.support.browser import axe_violations, shot
from tests.support.drafts import envelope, review_reply
from tests.support.factories import minimal_definition
from tests.support.fake_llm import FakeLlm
from tests.ui.conftest import Owner
from tests.ui.space_api import FIRST_MODEL_ANSWER_MS
from tests.ui.test_draft_to_run import sign_in

# Browser and process start-up count against a test's time; two shared cores make them slow.
pytestmark = pytest.mark.timeout(300)


def _api(ui_base: str, owner: Owner, method: str, path: str, **kwargs: Any) -> httpx.Response:
    return httpx.request(
        method,
        f"{ui_base}/api/v1{path}",
        headers={"Authorization": f"Bearer {owner.token}"},
        timeout=30,
        **kwargs,
    )


def _in_thread(database_url: str, statement: str, **params: Any) -> None:
    """Run SQL from a thread of its own: Playwright's sync API holds this thread's event loop slot."""

    async def run() -> None:
        engine = create_engine(database_url, pool_size=1)
        try:
            async with engine.begin() as connection:
                await connection.execute(text(statement), params)
        finally:
            await engine.dispose()

    errors: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(run())
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(30)
    assert not errors, errors


def test_every_page_loads_by_url_with_no_serious_accessibility_violation(
    page: Any, owner: Owner, ui_base: str
) -> None:
    automation = _api(
        ui_base,
        owner,
        "POST",
        f"/spaces/{owner.space_id}/automations",
        json={"definition": minimal_definition()},
    ).json()
    sign_in(page, owner)
    pages = {
        "dashboard": ("/", "Dashboard"),
        "automations": ("/automations", "Automations"),
        "automation": (f"/automations/{automation['id']}", automation["name"]),
        "new": ("/automations/new", "New automation"),
        "runs": ("/runs", "Runs"),
        "approvals": ("/approvals", "Approvals"),
        "connections": ("/connections", "Connections"),
        "documents": ("/documents", "Documents"),
        "queue": ("/queue", "Queue"),
        "settings": ("/settings", "Settings"),
        "missing-run": ("/runs/00000000-0000-0000-0000-000000000000", None),
        "unknown": ("/no-such-page", "Page not found"),
    }
    for name, (path, heading) in pages.items():
        page.goto(path)
        if heading:
            page.wait_for_selector(f"main h1:text-is('{heading}')")
        else:
            page.wait_for_selector("main .error[role='alert']")
        page.wait_for_selector(".loading", state="detached")
        assert page.locator("main .error").count() == 0 or name == "missing-run", f"{name} shows an error"
        violations = axe_violations(page)
        assert not violations, (name, violations)
        shot(page, f"page-{name}")


def test_a_version_conflict_is_explained_with_a_diff(page: Any, owner: Owner, ui_base: str) -> None:
    path = f"/spaces/{owner.space_id}/automations"
    automation = _api(
        ui_base, owner, "POST", path, json={"definition": minimal_definition(name="Original")}
    ).json()
    sign_in(page, owner)
    page.goto(f"/automations/{automation['id']}")
    name_field = page.locator("[data-section='/'] input[name='root[name]']")
    name_field.wait_for()
    # Meanwhile someone else saves version 2.
    other = _api(
        ui_base,
        owner,
        "PUT",
        f"{path}/{automation['id']}",
        json={"definition": minimal_definition(name="Renamed elsewhere"), "version": 1},
    )
    assert other.status_code == 200, other.text
    name_field.fill("Mine")
    name_field.press("Tab")
    page.click("#save-definition")
    conflict = page.locator("#conflict")
    conflict.wait_for()
    assert "Someone saved a newer version" in conflict.inner_text()
    assert "version 2" in conflict.inner_text()
    assert conflict.locator(".diff .del", has_text="Renamed elsewhere").count() == 1
    assert conflict.locator(".diff .add", has_text="Mine").count() == 1
    assert not axe_violations(page)
    shot(page, "version-conflict")
    # Nothing was overwritten behind the user's back.
    current = _api(ui_base, owner, "GET", f"{path}/{automation['id']}").json()
    assert (current["version"], current["name"]) == (2, "Renamed elsewhere")
    conflict.locator("button", has_text="Overwrite with mine").click()
    page.wait_for_selector("#version:text-is('version 3')")
    assert _api(ui_base, owner, "GET", f"{path}/{automation['id']}").json()["name"] == "Mine"


def test_an_expired_session_returns_to_sign_in_and_back(
    page: Any, owner: Owner, ui_base: str, database_url: str
) -> None:
    sign_in(page, owner)
    page.goto("/settings")
    page.wait_for_selector("main h1:text-is('Settings')")
    token = page.evaluate("sessionStorage.getItem('automations.token')")
    assert token
    assert token not in page.url
    _in_thread(
        database_url,
        "UPDATE api_tokens SET expires_at = now() - interval '1 second'"
        " WHERE name = 'Web sign-in' AND user_id = (SELECT id FROM users WHERE email = :email)",
        email=owner.email,
    )
    page.goto("/runs")
    page.wait_for_selector("#email")
    assert page.url.endswith("/signin")
    assert page.evaluate("sessionStorage.getItem('automations.token')") is None
    shot(page, "expired-session")
    page.fill("#email", owner.email)
    page.fill("#password", owner.password)
    page.keyboard.press("Enter")
    page.wait_for_selector("main h1:text-is('Runs')")


def test_a_wrong_password_is_refused_in_place(page: Any, owner: Owner) -> None:
    page.goto("/signin")
    page.fill("#email", owner.email)
    page.fill("#password", "not the password")
    page.keyboard.press("Enter")
    alert = page.locator("[role='alert']")
    alert.wait_for()
    assert "invalid_credentials" in alert.inner_text()
    assert page.evaluate("sessionStorage.getItem('automations.token')") is None


def test_the_draft_flow_works_with_the_keyboard_alone(page: Any, owner: Owner, fake_llm: FakeLlm) -> None:
    definition = minimal_definition(name="Keyboard drafted")
    fake_llm.reset()
    fake_llm.script(envelope(definition), review_reply("Does one small thing."))
    page.goto("/signin")
    page.keyboard.type(owner.email)  # the email field has focus on arrival
    page.keyboard.press("Tab")
    page.keyboard.type(owner.password)
    page.keyboard.press("Enter")
    page.wait_for_selector("main h1:text-is('Dashboard')")
    page.goto("/automations/new")
    page.wait_for_selector("#request:focus")
    page.keyboard.type("Do one small thing")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "draft-button"
    page.keyboard.press("Enter")
    page.wait_for_selector(".review-summary:has-text('Does one small thing.')", timeout=FIRST_MODEL_ANSWER_MS)
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "save-draft":
            break
    else:
        raise AssertionError("Save is not reachable with Tab")
    visible_focus = page.evaluate("getComputedStyle(document.activeElement, ':focus-visible').outlineStyle")
    assert visible_focus != "none"
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Saved, paused")
    fake_llm.reset()
