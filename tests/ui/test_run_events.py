"""GET /spaces/{space}/runs/events against a real API process: changes arrive live from any process
(the worker finishes the run), only to the run's own space, and a reconnect with Last-Event-ID first
replays what it missed. Streaming needs a real server (the in-process test client buffers answers)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import httpx
import pytest

from tests.support.factories import minimal_definition
from tests.support.servers import admin_sql
from tests.ui.conftest import Owner

# Browser and process start-up count against a test's time; two shared cores make them slow.
pytestmark = pytest.mark.timeout(300)


class Stream:
    """Reads one event stream on a thread, collecting its `run` events with their ids."""

    def __init__(self, base: str, owner: Owner, last_event_id: str | None = None) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.status: int | None = None
        self._stop = threading.Event()
        headers = {"Authorization": f"Bearer {owner.token}"}
        if last_event_id:
            headers["Last-Event-ID"] = last_event_id
        url = f"{base}/api/v1/spaces/{owner.space_id}/runs/events"
        self._thread = threading.Thread(target=self._read, args=(url, headers), daemon=True)
        self._thread.start()

    def _read(self, url: str, headers: dict[str, str]) -> None:
        try:
            with httpx.stream("GET", url, headers=headers, timeout=httpx.Timeout(5, read=30)) as response:
                self.status = response.status_code
                event_id, kind = "", ""
                for line in response.iter_lines():
                    if self._stop.is_set():
                        return
                    if line.startswith("id: "):
                        event_id = line[4:]
                    elif line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: ") and kind == "run":
                        self.events.append((event_id, json.loads(line[6:])))
        except httpx.HTTPError:
            # A stream the test closed waits for its next line; the api stopping after the test is no failure.
            if not self._stop.is_set():
                raise

    def wait_for(self, predicate: Any, seconds: float = 60) -> tuple[str, dict[str, Any]] | None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for event in list(self.events):
                if predicate(event[1]):
                    return event
            time.sleep(0.1)
        return None

    def wait_connected(self) -> None:
        deadline = time.monotonic() + 20
        while self.status is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert self.status == 200

    def close(self) -> None:
        self._stop.set()


def _api(base: str, owner: Owner, method: str, path: str, **kwargs: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {owner.token}", **kwargs.pop("headers", {})}
    return httpx.request(method, f"{base}/api/v1{path}", headers=headers, timeout=30, **kwargs)


def _run_now(base: str, owner: Owner) -> str:
    space = f"/spaces/{owner.space_id}"
    made = _api(base, owner, "POST", f"{space}/automations", json={"definition": minimal_definition()})
    assert made.status_code == 201, made.text
    run = _api(base, owner, "POST", f"{space}/automations/{made.json()['id']}/runs", json={})
    assert run.status_code == 202, run.text
    run_id: str = run.json()["id"]
    return run_id


def test_changes_arrive_live_only_in_their_space_and_replay_after_a_reconnect(
    ui_base: str, owner: Owner, ui_env: dict[str, str]
) -> None:
    from tests.support.browser import create_admin

    stranger_made = create_admin(
        ui_env, f"stranger-{time.monotonic_ns()}@example.test", "stranger passphrase 1", ui_base
    )
    stranger = Owner("", "", stranger_made["space_id"], stranger_made["token"])
    mine, theirs = Stream(ui_base, owner), Stream(ui_base, stranger)
    mine.wait_connected()
    theirs.wait_connected()
    before = str(int(time.time() * 1000) - 1000)
    run_id = _run_now(ui_base, owner)
    finished = mine.wait_for(lambda e: e["run_id"] == run_id and e["status"] == "succeeded")
    assert finished is not None, mine.events
    statuses = [e["status"] for _, e in mine.events if e["run_id"] == run_id]
    assert statuses[0] in ("pending", "queued")
    assert "running" in statuses
    assert not any(e["run_id"] == run_id for _, e in theirs.events)
    mine.close()
    theirs.close()

    replay = Stream(ui_base, owner, last_event_id=before)
    replayed = replay.wait_for(lambda e: e["run_id"] == run_id, seconds=10)
    replay.close()
    assert replayed is not None
    assert replayed[1]["status"] == "succeeded"
    assert int(replayed[0]) >= int(before)


def test_a_connected_stream_keeps_receiving_after_postgres_drops_the_listener(
    ui_base: str, owner: Owner, database_url: str
) -> None:
    stream = Stream(ui_base, owner)
    stream.wait_connected()
    first = _run_now(ui_base, owner)
    assert stream.wait_for(lambda e: e["run_id"] == first) is not None, stream.events

    # What a restart or an operator does to the API process's LISTEN connection (this database only).
    asyncio.run(
        admin_sql(
            database_url,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE query ILIKE 'LISTEN%run_changes%' AND datname = current_database()",
        )
    )
    # Made at once: either the new LISTEN hears it or the replay of the gap hands it over.
    second = _run_now(ui_base, owner)
    finished = stream.wait_for(lambda e: e["run_id"] == second and e["status"] == "succeeded")
    stream.close()
    assert finished is not None, stream.events


def test_bad_last_event_ids_unknown_spaces_and_missing_tokens_are_refused(ui_base: str, owner: Owner) -> None:
    path = f"/spaces/{owner.space_id}/runs/events"
    for bad in ("yesterday", "-5", "1" * 40):
        response = _api(ui_base, owner, "GET", path, headers={"Last-Event-ID": bad})
        assert response.status_code in (400, 422), bad
        assert response.json()["error"]["code"] in ("invalid_last_event_id", "validation_failed")
    other = _api(ui_base, owner, "GET", "/spaces/00000000-0000-0000-0000-000000000001/runs/events")
    assert other.status_code == 404
    anonymous = httpx.get(f"{ui_base}/api/v1{path}", timeout=10)
    assert anonymous.status_code == 401
