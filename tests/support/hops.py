"""A loopback server that records every request and redirects where asked: two of them are two origins.

`/redirect/<status>?to=<url>` answers that status with `Location: <url>`; any other path answers 200
with `{"ok": true}`. Every request (method, path, headers, body) is kept in `received`.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit


@dataclass(frozen=True)
class Hit:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class HopServer:
    def __init__(self) -> None:
        self.received: list[Hit] = []
        self._lock = threading.Lock()
        hops = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def _answer(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with hops._lock:
                    hops.received.append(Hit(self.command, self.path, dict(self.headers.items()), body))
                parts = urlsplit(self.path)
                segments = [segment for segment in parts.path.split("/") if segment]
                if segments[:1] == ["redirect"]:
                    self.send_response(int(segments[1]))
                    self.send_header("Location", parse_qs(parts.query)["to"][0])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                answer = json.dumps({"ok": True}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            do_GET = do_POST = do_PUT = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def redirect(self, status: int, to: str) -> str:
        """A URL on this server that redirects with `status` to `to`."""
        return f"{self.origin}/redirect/{status}?to={quote(to, safe='')}"

    def start(self) -> HopServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
