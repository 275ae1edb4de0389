"""An open run event stream ends when its caller's access does: a token revoked through the API (or
signed out), a token that expires, a membership removed. Each ends with `event: revoked` and its reason,
and no run change reaches the stream after that. A revocation nobody announced (the notification lost)
is found by the periodic re-check. Against real API processes: the in-process client buffers answers."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.services.identity.signin import SIGN_IN_TOKEN_NAME
from tests.support.browser import start_api
from tests.support.servers import admin_sql
from tests.ui.conftest import Owner
from tests.ui.test_run_events import _api, _run_now

pytestmark = pytest.mark.timeout(300)

# Well under the default re-check (30 s): these closings come from the revocation signal.
SIGNALLED_SECONDS = 10
RECHECK_SECONDS = 1


@pytest.fixture(scope="module")
def rechecking_base(ui_env: dict[str, str], settings: Settings, ui_base: str) -> Iterator[str]:
    """A second API process that re-checks open streams every second."""
    env = {**ui_env, "AUTOMATIONS_STREAM_RECHECK_SECONDS": str(RECHECK_SECONDS)}
    process, base = start_api(env, settings.home, name="ui-api-recheck")
    yield base
    process.stop()


class Events:
    """Reads one event stream on a thread: every event with its kind, and when the stream ended."""

    def __init__(self, base: str, space_id: str, token: str) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.status: int | None = None
        self.ended = threading.Event()
        self.error: Exception | None = None
        url = f"{base}/api/v1/spaces/{space_id}/runs/events"
        headers = {"Authorization": f"Bearer {token}"}
        self._thread = threading.Thread(target=self._read, args=(url, headers), daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 20
        while self.status is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert self.status == 200

    def _read(self, url: str, headers: dict[str, str]) -> None:
        try:
            with httpx.stream("GET", url, headers=headers, timeout=httpx.Timeout(5, read=60)) as response:
                self.status = response.status_code
                kind = ""
                for line in response.iter_lines():
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: "):
                        self.events.append((kind, json.loads(line[6:])))
        except httpx.HTTPError as exc:
            self.error = exc
        finally:
            self.ended.set()

    def runs(self, run_id: str) -> list[dict[str, Any]]:
        return [data for kind, data in self.events if kind == "run" and data["run_id"] == run_id]

    def wait_run(self, run_id: str, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while not self.runs(run_id):
            assert time.monotonic() < deadline, self.events
            time.sleep(0.1)

    def closing(self, seconds: float) -> dict[str, Any]:
        """The `revoked` event the stream ended with (within `seconds`)."""
        assert self.ended.wait(seconds), f"the stream is still open: {self.events}"
        assert self.error is None, f"the stream was cut, not closed: {self.error!r}"
        kind, data = self.events[-1]
        assert kind == "revoked", self.events
        return data


def _token(base: str, owner: Owner, **body: Any) -> dict[str, Any]:
    made = _api(base, owner, "POST", "/tokens", json={"name": "stream", **body})
    assert made.status_code == 201, made.text
    token: dict[str, Any] = made.json()
    return token


def test_revoking_the_token_through_the_api_closes_its_open_stream(ui_base: str, owner: Owner) -> None:
    second = _token(ui_base, owner)
    stream = Events(ui_base, owner.space_id, second["token"])
    before = _run_now(ui_base, owner)
    stream.wait_run(before)

    revoked = _api(ui_base, owner, "POST", f"/tokens/{second['id']}/revoke")
    assert revoked.status_code == 200, revoked.text
    after = _run_now(ui_base, owner)
    closing = stream.closing(SIGNALLED_SECONDS)
    assert closing["reason"] == "token_revoked"
    assert closing["message"]
    assert not stream.runs(after), "no change reaches a stream after its token is revoked"
    # The browser's reconnect is refused as well.
    again = httpx.get(
        f"{ui_base}/api/v1/spaces/{owner.space_id}/runs/events",
        headers={"Authorization": f"Bearer {second['token']}"},
        timeout=10,
    )
    assert again.status_code == 401


def test_signing_out_closes_the_stream_of_that_session(ui_base: str, owner: Owner) -> None:
    second = _token(ui_base, owner)
    stream = Events(ui_base, owner.space_id, second["token"])
    out = httpx.delete(
        f"{ui_base}/api/v1/auth/sessions/current",
        headers={"Authorization": f"Bearer {second['token']}"},
        timeout=10,
    )
    assert out.status_code == 204
    assert stream.closing(SIGNALLED_SECONDS)["reason"] == "token_revoked"


def test_removing_the_member_closes_their_stream_and_only_theirs(ui_base: str, owner: Owner) -> None:
    email = f"m-{uuid.uuid4().hex[:6]}@example.test"
    added = _api(ui_base, owner, "POST", f"/spaces/{owner.space_id}/members", json={"email": email})
    assert added.status_code == 201, added.text
    member = added.json()
    accepted = httpx.post(
        f"{ui_base}/api/v1/invitations/accept",
        json={"token": member["invitation"]["token"], "password": "a member's long passphrase"},
        timeout=10,
    )
    assert accepted.status_code == 201, accepted.text
    theirs = Events(ui_base, owner.space_id, accepted.json()["token"])
    mine = Events(ui_base, owner.space_id, owner.token)

    removed = _api(ui_base, owner, "DELETE", f"/spaces/{owner.space_id}/members/{member['user_id']}")
    assert removed.status_code == 204, removed.text
    after = _run_now(ui_base, owner)
    assert theirs.closing(SIGNALLED_SECONDS)["reason"] == "membership_removed"
    assert not theirs.runs(after)
    mine.wait_run(after)
    assert not mine.ended.is_set(), "the owner's stream stays open"


def test_a_token_that_expires_closes_the_stream_when_it_expires(
    ui_base: str, owner: Owner, database_url: str
) -> None:
    second = _token(ui_base, owner, expires_in_days=1)
    # No route shortens a token: its expiry is moved a few seconds ahead in the database.
    token_id = uuid.UUID(second["id"])
    asyncio.run(
        admin_sql(
            database_url,
            f"UPDATE api_tokens SET expires_at = now() + interval '6 seconds' WHERE id = '{token_id}'",  # noqa: S608 (a UUID)
        )
    )
    stream = Events(ui_base, owner.space_id, second["token"])
    opened = time.monotonic()
    assert stream.closing(SIGNALLED_SECONDS + 6)["reason"] == "token_expired"
    assert time.monotonic() - opened < SIGNALLED_SECONDS + 6


def test_a_revocation_nobody_announced_is_found_by_the_periodic_recheck(
    rechecking_base: str, owner: Owner, database_url: str
) -> None:
    second = _token(rechecking_base, owner)
    stream = Events(rechecking_base, owner.space_id, second["token"])
    # Several re-checks pass and the stream stays open while nothing changed.
    time.sleep(RECHECK_SECONDS * 3)
    first = _run_now(rechecking_base, owner)
    stream.wait_run(first)
    assert not stream.ended.is_set()

    # Revoked with triggers off (a replica session): no notification, as if it were lost.
    token_id = uuid.UUID(second["id"])
    asyncio.run(
        admin_sql(
            database_url,
            "DO $$ BEGIN PERFORM set_config('session_replication_role', 'replica', true);"  # noqa: S608 (a UUID)
            f" UPDATE api_tokens SET revoked_at = now() WHERE id = '{token_id}'; END $$",
        )
    )
    assert stream.closing(RECHECK_SECONDS * 10)["reason"] == "token_revoked"


def test_the_runs_page_signs_out_when_its_session_is_revoked_elsewhere(
    page: Any, owner: Owner, ui_base: str
) -> None:
    from tests.ui.test_draft_to_run import sign_in

    sign_in(page, owner)
    page.goto("/runs")
    page.wait_for_selector("#live-state[data-state=live]")
    listed = _api(ui_base, owner, "GET", "/tokens?limit=200").json()["items"]
    # The owner's own API token is a sign-in too: the page's is the other live one.
    [signed_in] = [
        t
        for t in listed
        if t["name"] == SIGN_IN_TOKEN_NAME
        and t["revoked_at"] is None
        and not owner.token.startswith(t["display_prefix"])
    ]
    revoked = _api(ui_base, owner, "POST", f"/tokens/{signed_in['id']}/revoke")
    assert revoked.status_code == 200
    # Told by the stream itself: no API call of the page's own is needed to notice.
    page.wait_for_selector("form[aria-label='Sign in with password']", timeout=SIGNALLED_SECONDS * 1000)
    assert page.evaluate("sessionStorage.getItem('automations.token')") is None
