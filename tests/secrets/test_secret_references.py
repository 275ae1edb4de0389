"""Secret references in a real run: resolved from the vault inside the pipeline, never stored or shown.

A real worker executes the run; a loopback server stands in for the API the step calls and echoes the
credential it received, as a careless server would.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from sqlalchemy import text

from tests.support.factories import Caller, Factory
from tests.support.runs import attempts, definition, fire, start, wait_for

VALUE = "sk-live-" + uuid.uuid4().hex


class EchoServer:
    """Answers every request with the Authorization header it got, and remembers it."""

    def __init__(self) -> None:
        self.received: list[str | None] = []
        echo = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                header = self.headers.get("Authorization")
                echo.received.append(header)
                body = json.dumps({"you_sent": header}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/me"


@pytest.fixture(scope="module")
def echo() -> Iterator[EchoServer]:
    server = EchoServer()
    server.thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


def call_step(url: str, secret: str) -> dict[str, Any]:
    return {
        "step_id": "call",
        "action": "http_request",
        "max_retries": 2,
        "output_as": "answer",
        "config": {"method": "GET", "url": url, "headers": {"Authorization": {"$secret": secret}}},
    }


async def store(owner: Caller, name: str, value: str) -> None:
    response = await owner.request("PUT", owner.space_path(f"/secrets/{name}"), json={"value": value})
    assert response.status_code == 201, response.text


async def test_a_reference_reaches_the_server_and_nothing_stored_or_shown_holds_the_value(
    app: Any, factory: Factory, echo: EchoServer, worker: Any
) -> None:
    owner = await factory.owner()
    await store(owner, "crm_token", VALUE)
    _, run = await start(owner, definition(call_step(echo.url, "crm_token")))
    done = await wait_for(owner, run["id"])
    assert done["status"] == "succeeded", done
    assert echo.received[-1] == VALUE
    (step,) = attempts(done, "call")
    assert step["config"]["headers"]["Authorization"] == {"$secret": "crm_token"}
    assert VALUE not in json.dumps(done)
    async with app.state.engine.connect() as connection:
        for table in ("runs", "run_steps"):
            # Table names are the two literals above, not input.
            query = text(f"SELECT row_to_json(t)::text FROM {table} t")  # noqa: S608
            rows = (await connection.execute(query)).all()
            assert all(VALUE not in row[0] for row in rows), table


async def test_a_secret_deleted_after_saving_fails_the_step_once_with_secret_missing(
    factory: Factory, echo: EchoServer, worker: Any
) -> None:
    owner = await factory.owner()
    other = await factory.owner(space="Other")
    await store(owner, "crm_token", VALUE)
    await store(other, "crm_token", VALUE)  # another space's secret of that name does not count
    automation = await owner.create_automation(definition(call_step(echo.url, "crm_token")))
    await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
    deleted = await owner.request("DELETE", owner.space_path("/secrets/crm_token"))
    assert deleted.status_code == 204, deleted.text
    before = len(echo.received)
    run = await fire(owner, automation["id"])
    done = await wait_for(owner, run["id"])
    assert done["status"] == "failed"
    (step,) = attempts(done, "call")
    assert step["error"]["code"] == "secret_missing"
    assert "crm_token" in step["error"]["message"]
    assert len(echo.received) == before
