"""Browser fixtures: the API as a child process (with the session's worker and loopback LLM), a
signed-up owner, and Chromium through Playwright's sync API."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from app.config import Settings
from tests.support.browser import CHROMIUM_FLAGS, chromium_path, create_admin, ensure_ui_built, start_api
from tests.support.fake_llm import TEST_MODEL
from tests.support.processes import ServiceProcess

PASSWORD = "browser tests passphrase"


@dataclass
class Owner:
    email: str
    password: str
    space_id: str
    token: str


@pytest.fixture(scope="session")
def ui_env(service_env: dict[str, str]) -> dict[str, str]:
    return {**service_env, "AUTOMATIONS_AUTHORING_MODEL": TEST_MODEL, "AUTOMATIONS_SESSION_TOKEN_HOURS": "8"}


@pytest.fixture(scope="session")
def ui_base(ui_env: dict[str, str], settings: Settings, worker: ServiceProcess) -> Iterator[str]:
    """The base URL of a real `automations api` serving the built UI, with a real worker running."""
    ensure_ui_built()
    process, base = start_api(ui_env, settings.home)
    yield base
    process.stop(graceful=False)


@pytest.fixture
def owner(ui_env: dict[str, str], ui_base: str) -> Owner:
    email = f"ui-{uuid.uuid4().hex[:8]}@example.test"
    made = create_admin(ui_env, email, PASSWORD, ui_base)
    return Owner(email=email, password=PASSWORD, space_id=made["space_id"], token=made["token"])


@pytest.fixture(scope="module")
def browser(ui_base: str) -> Iterator[Any]:
    """Chromium for one test module. While Playwright's sync API is open this thread looks like it
    runs an event loop, so everything async (the database, the API process) is set up before it and
    it is closed before other packages' async tests run."""
    executable = chromium_path()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any, ui_base: str) -> Iterator[Any]:
    context = browser.new_context(base_url=ui_base, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if message.type == "error" and "Content Security Policy" in message.text
            else None
        ),
    )
    opened.errors = errors  # type: ignore[attr-defined]
    yield opened
    context.close()
    assert not errors, f"the page raised errors or CSP refusals: {errors}"
