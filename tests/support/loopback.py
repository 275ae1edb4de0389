"""A loopback HTTP server standing in for the outside world: it counts every request it gets.

Routes: `/count/<name>` (200), `/slow/<name>?seconds=S` (counts on arrival, answers after S),
`/status/<code>/<name>`, `/fail/<name>?times=N` (500 for the first N requests, then 200).
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse


class Loopback:
    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.bodies: dict[str, list[Any]] = {}
        self._lock = threading.Lock()
        loopback = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def _answer(self) -> None:
                url = urlparse(self.path)
                parts = [p for p in url.path.split("/") if p]
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                kind, name = [*parts, "", ""][:2]
                if kind == "status":
                    name = parts[2] if len(parts) > 2 else "status"
                count = loopback.record(name, body)
                code = 200
                if kind == "slow":
                    time.sleep(float(query.get("seconds", "1")))
                elif kind == "status":
                    code = int(parts[1])
                elif kind == "fail" and count <= int(query.get("times", "1")):
                    code = 500
                payload = json.dumps({"name": name, "count": count, "method": self.command}).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_DELETE = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def record(self, name: str, body: bytes) -> int:
        with self._lock:
            self.hits[name] += 1
            try:
                self.bodies.setdefault(name, []).append(json.loads(body) if body else None)
            except ValueError:
                self.bodies.setdefault(name, []).append(body.decode(errors="replace"))
            return self.hits[name]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> Loopback:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
