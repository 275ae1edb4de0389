"""Loopback webhook receivers that verify every delivery with the `standardwebhooks` library.

Routes (each name keeps its own log and secret): `/ok/<name>`; `/flaky/<name>?times=N` (500 for
the first N deliveries, then 200; with `&retry_after=S`, 503 and that Retry-After); `/gone/<name>`
(410); `/hang/<name>` (answers after a minute); `/redirect/<name>` (302 to a cloud metadata address);
`/status/<code>/<name>`.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


@dataclass(frozen=True)
class Received:
    headers: dict[str, str]
    body: bytes
    payload: Any  # the verified JSON body, or None when verification failed
    error: str | None


class Receivers:
    def __init__(self) -> None:
        self.secrets: dict[str, str] = {}
        self.received: dict[str, list[Received]] = defaultdict(list)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        receivers = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                parts = [p for p in self.path.split("?")[0].split("/") if p]
                query = dict(q.split("=", 1) for q in self.path.partition("?")[2].split("&") if "=" in q)
                kind = parts[0]
                name = parts[-1]
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                count = receivers.record(name, dict(self.headers.items()), body)
                code, headers = 200, {}
                if kind == "flaky" and count <= int(query.get("times", "1")):
                    code = 500
                    if "retry_after" in query:
                        code, headers = 503, {"Retry-After": query["retry_after"]}
                elif kind == "gone":
                    code = 410
                elif kind == "status":
                    code = int(parts[1])
                elif kind == "redirect":
                    code, headers = 302, {"Location": "http://169.254.169.254/latest/meta-data/"}
                elif kind == "hang":
                    receivers._stop.wait(60)
                self.send_response(code)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def record(self, name: str, headers: dict[str, str], body: bytes) -> int:
        payload, error = None, None
        secret = self.secrets.get(name)
        try:
            if secret is None:
                raise WebhookVerificationError("no secret registered for this receiver")
            payload = Webhook(secret).verify(body, headers)
        except WebhookVerificationError as exc:
            error = str(exc)
        with self._lock:
            self.received[name].append(Received(headers, body, payload, error))
            return len(self.received[name])

    def url(self, route: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/{route}"

    def wait_for(self, name: str, count: int, timeout: float = 30) -> list[Received]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.received[name]) >= count:
                    return list(self.received[name])
            time.sleep(0.05)
        raise AssertionError(f"{name}: {len(self.received[name])} deliveries, expected {count}")

    def start(self) -> Receivers:
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()
