"""A loopback fake of Slack's Web API (`chat.postMessage`, `chat.update`, `users.info`): the real request
shapes and answer shapes.

`users` maps Slack user ids to profile emails for `users.info` (form-encoded `user`); `updates` holds
the `chat.update` bodies; `fail_posts` makes the next N posts answer HTTP 500.

Tokens: `xoxb-good` posts; `xoxb-revoked` answers `invalid_auth`; `xoxb-busy` answers HTTP 429 with
`Retry-After` for its first N requests (`busy_times`). Channel `C404` answers `channel_not_found`.
Like Slack, errors come back as HTTP 200 with `{"ok": false, "error": …}`.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs


class FakeSlack:
    def __init__(self) -> None:
        self.posts: list[dict[str, Any]] = []
        self.updates: list[dict[str, Any]] = []
        self.users: dict[str, str] = {}
        self.fail_posts = 0
        self.auth: list[str] = []
        self.calls: Counter[str] = Counter()
        self.busy_times = 1
        self.retry_after = "1"
        self._lock = threading.Lock()
        slack = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                token = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                status, answer, headers = slack.answer(self.path, token, self.headers, body)
                payload = json.dumps(answer).encode()
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def answer(
        self, path: str, token: str, headers: Any, body: bytes
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._lock:
            self.calls[token] += 1
            calls = self.calls[token]
            self.auth.append(token)
        if path == "/api/users.info":
            return self._user_info(token, body)
        if path == "/api/chat.update":
            return self._update(token, headers, body)
        if path != "/api/chat.postMessage":
            return 404, {"ok": False, "error": "unknown_method"}, {}
        with self._lock:
            if self.fail_posts > 0:
                self.fail_posts -= 1
                return 500, {"ok": False, "error": "fatal_error"}, {}
        if not (headers.get("Content-Type") or "").startswith("application/json"):
            return 200, {"ok": False, "error": "invalid_arguments"}, {}
        if token == "xoxb-busy" and calls <= self.busy_times:
            return 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": self.retry_after}
        if token not in ("xoxb-good", "xoxb-busy"):
            return 200, {"ok": False, "error": "invalid_auth" if token else "not_authed"}, {}
        message = json.loads(body)
        if not message.get("channel"):
            return 200, {"ok": False, "error": "channel_not_found"}, {}
        if message["channel"] == "C404":
            return 200, {"ok": False, "error": "channel_not_found"}, {}
        if not message.get("text") and not message.get("blocks"):
            return 200, {"ok": False, "error": "no_text"}, {}
        with self._lock:
            self.posts.append(message)
            ts = f"1700000000.{len(self.posts):06d}"
        channel = "C0ENG" if message["channel"] == "#eng" else message["channel"]
        return 200, {"ok": True, "channel": channel, "ts": ts, "message": {"text": message.get("text")}}, {}

    def _user_info(self, token: str, body: bytes) -> tuple[int, dict[str, Any], dict[str, str]]:
        if token not in ("xoxb-good", "xoxb-busy"):
            return 200, {"ok": False, "error": "invalid_auth"}, {}
        user_id = parse_qs(body.decode()).get("user", [""])[0]
        email = self.users.get(user_id)
        if email is None:
            return 200, {"ok": False, "error": "user_not_found"}, {}
        return 200, {"ok": True, "user": {"id": user_id, "profile": {"email": email}}}, {}

    def _update(self, token: str, headers: Any, body: bytes) -> tuple[int, dict[str, Any], dict[str, str]]:
        if token not in ("xoxb-good", "xoxb-busy"):
            return 200, {"ok": False, "error": "invalid_auth"}, {}
        if not (headers.get("Content-Type") or "").startswith("application/json"):
            return 200, {"ok": False, "error": "invalid_arguments"}, {}
        message = json.loads(body)
        with self._lock:
            known = any(post_ts == message.get("ts") for post_ts in self.timestamps)
            if not known:
                return 200, {"ok": False, "error": "message_not_found"}, {}
            self.updates.append(message)
        return 200, {"ok": True, "channel": message.get("channel"), "ts": message.get("ts")}, {}

    @property
    def timestamps(self) -> list[str]:
        return [f"1700000000.{index:06d}" for index in range(1, len(self.posts) + 1)]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/api"

    def start(self) -> FakeSlack:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
