"""The automation page in step with the server: a try-out run that ends before the page's live stream
opens is still shown ended, and a definition is checked once (the saved one on opening, each edit once
more), not again when the form only drops empty values."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.loopback import Loopback
from tests.ui.conftest import Owner
from tests.ui.space_api import space_api, wait_run_status
from tests.ui.test_automation_page import _create, _open, _posting

pytestmark = pytest.mark.timeout(300)


def test_a_try_out_run_that_ends_before_the_live_stream_opens_still_shows_its_end(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    automation = _create(ui_base, owner, _posting(f"{loopback.url}/count/early", "Over at once"))
    _open(page, owner, automation)

    def after_the_run_ended(route: Any) -> None:
        # The stream opens only once the run is over, so the run's own events all went by unheard.
        runs = space_api(ui_base, owner, "GET", f"/runs?automation_id={automation['id']}").json()["items"]
        wait_run_status(ui_base, owner, runs[0]["id"], "succeeded")
        route.continue_()

    page.route("**/runs/events", after_the_run_ended)
    page.click("#dry-run-button")
    page.locator("#tryout-run-status [data-status='succeeded']").wait_for()


def test_the_saved_definition_is_checked_once_on_opening_and_an_edit_once_more(
    page: Any, owner: Owner, ui_base: str
) -> None:
    checked: list[dict[str, Any]] = []
    page.on(
        "request",
        lambda request: (
            checked.append(json.loads(request.post_data)["definition"])
            if request.url.endswith("/automations/validate")
            else None
        ),
    )
    automation = _create(ui_base, owner, _posting("https://hooks.example.com/once", "Checked once"))
    _open(page, owner, automation)
    url = page.locator("[data-section='/plan/0'] input[name='root[config][url]']")
    url.wait_for()
    # The form drops the saved definition's empty values as it paints: that is no edit to check again.
    page.wait_for_timeout(1500)
    assert len(checked) == 1, checked

    with page.expect_request(lambda request: request.url.endswith("/automations/validate")):
        url.fill("https://hooks.example.com/edited")
        url.press("Tab")
    assert len(checked) == 2
    assert checked[1]["plan"][0]["config"]["url"] == "https://hooks.example.com/edited"
