"""The queue page in Chromium: runs held back by a serial automation, in promotion order with the depth
of their worker queue, cancelled from the page; the chart of waiting runs over the last hour; and the
empty state."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.support.browser import axe_violations, shot
from tests.support.loopback import Loopback
from tests.ui.conftest import Owner
from tests.ui.space_api import automation_needing_approval, space_api, wait_run_status
from tests.ui.test_draft_to_run import sign_in

pytestmark = pytest.mark.timeout(300)

# Beat samples the queues once a minute; the test takes the current minute's sample itself, in a
# process of its own (this thread runs the browser's event loop).
SAMPLE = """
import asyncio
from datetime import UTC, datetime

from app.config import get_settings
from app.persistence.db import create_engine, create_sessionmaker
from app.persistence.transaction import transaction
from app.services.runs.queue_depth import QueueDepthService


async def main():
    engine = create_engine(get_settings().database_url)
    async with transaction(create_sessionmaker(engine), lambda *_: None) as session:
        await QueueDepthService().sample(session, datetime.now(UTC))
    await engine.dispose()


asyncio.run(main())
"""


def _current_minute() -> datetime:
    return datetime.now(UTC).replace(second=0, microsecond=0)


def _past_the_minutes_first_ticks() -> None:
    """Until beat (when the session runs one) has ticked in the current minute: before, the page's chart
    ends at the minute before, as it does for a minute beat has not sampled yet."""
    now = datetime.now(UTC)
    second = now.second + now.microsecond / 1e6
    if second < 3:
        time.sleep(3 - second)


def _sample_queues(ui_env: dict[str, str]) -> None:
    subprocess.run([sys.executable, "-c", SAMPLE], env=ui_env, check=True, timeout=60)


def test_queued_runs_show_in_order_with_their_depth_and_are_cancelled_from_the_page(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback, ui_env: dict[str, str]
) -> None:
    # The first run waits for a human, so the next ones stay queued behind it for as long as the test needs.
    automation = automation_needing_approval(
        ui_base,
        owner,
        "One at a time",
        f"{loopback.url}/count/queue-{uuid.uuid4().hex[:6]}",
        execution={"concurrency": "queue"},
    )
    fire = f"/automations/{automation['id']}/runs"
    first = space_api(ui_base, owner, "POST", fire, json={"inputs": {}}).json()
    wait_run_status(ui_base, owner, first["id"], "awaiting_approval")
    second, third = (space_api(ui_base, owner, "POST", fire, json={"inputs": {}}).json() for _ in range(2))
    assert (second["status"], third["status"]) == ("queued", "queued")

    sign_in(page, owner)
    # "now" is the current minute's sample: one taken in the minute the page is read in.
    for _ in range(3):
        _past_the_minutes_first_ticks()
        minute = _current_minute()
        _sample_queues(ui_env)
        page.goto("/queue")
        page.wait_for_selector("table.queue")
        page.wait_for_selector("#queue-depth-chart .uplot")
        summary = page.inner_text("#queue-depth-summary")
        if _current_minute() == minute:
            break
    assert f"{second['queue']}: at most 2, now 2" in summary, summary
    order = page.eval_on_selector_all("table.queue tbody tr", "rows => rows.map(r => r.dataset.run)")
    assert order == [second["id"], third["id"]]
    depth = page.inner_text(f".depths [data-queue='{second['queue']}']")
    assert depth.startswith("2 "), depth
    assert not axe_violations(page), axe_violations(page)
    shot(page, "queue")

    page.click(f"button[aria-label='Cancel run {second['id'][:8]}']")
    page.wait_for_selector(f"text=Run {second['id'][:8]} cancelled.")
    page.wait_for_selector(f"table.queue tr[data-run='{second['id']}']", state="detached")
    assert space_api(ui_base, owner, "GET", f"/runs/{second['id']}").json()["status"] == "cancelled"
    assert space_api(ui_base, owner, "GET", f"/runs/{third['id']}").json()["status"] == "queued"


def test_an_empty_queue_says_so(page: Any, owner: Owner) -> None:
    sign_in(page, owner)
    page.goto("/queue")
    page.wait_for_selector("main .empty:has-text('Nothing is queued')")
    page.wait_for_selector("#queue-depth-summary:has-text('No run of this space waited')")
    page.wait_for_selector("#queue-depth-chart .uplot")
    assert not axe_violations(page), axe_violations(page)


def test_arrows_move_queued_runs_and_the_promoted_run_says_what_freed_its_slot(
    page: Any, owner: Owner, ui_base: str, loopback: Loopback
) -> None:
    automation = automation_needing_approval(
        ui_base,
        owner,
        "Reordered line",
        f"{loopback.url}/count/reorder-{uuid.uuid4().hex[:6]}",
        execution={"concurrency": "queue"},
    )
    fire = f"/automations/{automation['id']}/runs"
    first = space_api(ui_base, owner, "POST", fire, json={"inputs": {}}).json()
    wait_run_status(ui_base, owner, first["id"], "awaiting_approval")
    a, b, c = (space_api(ui_base, owner, "POST", fire, json={"inputs": {}}).json()["id"] for _ in range(3))

    def order() -> list[str]:
        return page.eval_on_selector_all("table.queue tbody tr", "rows => rows.map(r => r.dataset.run)")

    def click_and_wait(label: str, expected: list[str]) -> None:
        page.click(f"button[aria-label='{label}']")
        page.wait_for_function(
            "ids => JSON.stringify([...document.querySelectorAll('table.queue tbody tr')]"
            ".map(r => r.dataset.run)) === JSON.stringify(ids)",
            arg=expected,
        )

    sign_in(page, owner)
    page.goto("/queue")
    page.wait_for_selector("table.queue")
    assert order() == [a, b, c]
    assert page.is_disabled(f"button[aria-label='Raise run {a[:8]}']")
    assert page.is_disabled(f"button[aria-label='Lower run {c[:8]}']")

    click_and_wait(f"Raise run {c[:8]}", [c, a, b])
    page.wait_for_selector(f"text=Run {c[:8]} now has priority 1.")
    assert space_api(ui_base, owner, "GET", f"/runs/{c}").json()["priority"] == 1
    click_and_wait(f"Lower run {c[:8]}", [a, b, c])
    click_and_wait(f"Lower run {a[:8]}", [b, a, c])
    assert not axe_violations(page), axe_violations(page)

    # The first run's end frees the line: the head of the queue is promoted, and its page says why.
    space_api(ui_base, owner, "POST", f"/runs/{first['id']}/cancel")
    page.wait_for_selector(f"table.queue tr[data-run='{b}']", state="detached")
    page.goto(f"/runs/{b}")
    promotion = page.wait_for_selector("#run-promotion")
    assert promotion.inner_text().startswith(f"promoted: slot freed by run {first['id'][:8]}")
    page.click(f"#run-promotion a[href='/runs/{first['id']}']")
    page.wait_for_selector(f"h1:has-text('Run {first['id'][:8]}')")
