"""A loopback HTTP server speaking OpenAI chat completions, scripted per test.

    fake = FakeLlm().start()
    fake.script(reply("hi"), tool_call("search", {"q": "x"}), error(429, retry_after=2))
    ... point a model's api_base at fake.base_url (http://127.0.0.1:PORT/v1) ...
    fake.requests   # every request body received, parsed JSON, in order
    fake.stop()

`POST /v1/embeddings` answers deterministic vectors (`fake_embedding`). Each `POST /v1/chat/completions`
(or `/chat/completions`, or a request in one of the `provider_dialects`: Azure OpenAI, Anthropic,
Ollama's native API, Bedrock's Converse) takes the next scripted answer, rendered in the dialect of the
request; `targets` records each such request's path with its query string. An empty
script answers 500 with a message saying so. `answer_by` replaces the script with a function of the
request, for a test whose model calls may be asked again (a run claimed anew after a lost lease).
The server runs on a thread of the test process and is reached over TCP, so a Celery worker in another
process talks to it like to a real provider.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support import provider_dialects

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
EMBEDDING_PATHS = ("/v1/embeddings", "/embeddings")
EMBEDDING_DIMENSIONS = 64
# The model the test settings allow, priced so the ledger must equal usage times these exactly.
TEST_MODEL = "openai/test-model"
TEST_MODEL_KEY_ENV = "TEST_LLM_API_KEY"
INPUT_PRICE, OUTPUT_PRICE = 0.000001, 0.000002


@dataclass(frozen=True)
class ToolCall:
    """One call the fake model asks for; `arguments` is sent as the JSON text the model would write."""

    name: str
    arguments: dict[str, Any] | str
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """A successful completion: text and/or tool calls, with the usage figures to report."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    prompt_tokens: int = 10
    completion_tokens: int = 5
    delay: float = 0.0
    finish_reason: str | None = None


@dataclass(frozen=True)
class Error:
    """An HTTP error answer in OpenAI's error format."""

    status: int
    message: str
    retry_after: float | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


Answer = Reply | Error


def reply(
    content: str | None = None,
    *,
    tool_calls: tuple[ToolCall, ...] | list[ToolCall] = (),
    prompt_tokens: int = 10,
    completion_tokens: int = 5,
    delay: float = 0.0,
) -> Reply:
    """A text answer (and/or tool calls); `delay` seconds pass before the answer is sent."""
    return Reply(content, tuple(tool_calls), prompt_tokens, completion_tokens, delay)


def json_reply(value: Any, **kwargs: Any) -> Reply:
    """An answer whose text is `value` as JSON (structured output)."""
    return reply(json.dumps(value), **kwargs)


def tool_call(name: str, arguments: dict[str, Any] | str | None = None, *, id: str | None = None) -> ToolCall:
    """One tool call; pass it to `script` alone or several to `tool_calls` for one message."""
    return ToolCall(name, {} if arguments is None else arguments, id)


def tool_calls(*calls: ToolCall, **kwargs: Any) -> Reply:
    """One assistant message carrying several tool calls (kwargs as for `reply`)."""
    return reply(None, tool_calls=calls, **kwargs)


def error(
    status: int, message: str | None = None, *, retry_after: float | None = None, delay: float = 0.0
) -> Error:
    """An HTTP error; a 429 gets `Retry-After: 1` unless `retry_after` says otherwise."""
    if status == 429 and retry_after is None:
        retry_after = 1
    return Error(status, message or f"fake LLM error {status}", retry_after, delay)


class FakeLlm:
    """The scripted server; see the module docstring. Usable as a context manager."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        self.targets: list[str] = []
        # Bodies of `POST /v1/embeddings` (answered with `fake_embedding` of each input, never scripted).
        self.embedding_requests: list[dict[str, Any]] = []
        self._script: deque[Answer] = deque()
        self._answer_by: Callable[[dict[str, Any]], Answer | ToolCall] | None = None
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self.server = ThreadingHTTPServer((host, 0), self._handler_class())
        # Daemon threads: a slow answer still sleeping must not keep stop() or the interpreter waiting.
        self.server.daemon_threads = True
        # A short poll interval: stop() waits for the serving loop to notice, once per test.
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        """The server's origin, e.g. http://127.0.0.1:54321."""
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (origin + /v1) to use as a model's api_base."""
        return f"{self.url}/v1"

    def start(self) -> FakeLlm:
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> FakeLlm:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def script(self, *answers: Answer | ToolCall) -> FakeLlm:
        """Queue answers, served in order; a bare ToolCall is a message with that one call."""
        with self._lock:
            for answer in answers:
                self._script.append(tool_calls(answer) if isinstance(answer, ToolCall) else answer)
        return self

    def answer_by(self, answer: Callable[[dict[str, Any]], Answer | ToolCall]) -> FakeLlm:
        """Answer each request with `answer(body)` instead of the script: the same conversation gets the
        same answer however often it is asked, as a deterministic model would give it."""
        with self._lock:
            self._answer_by = answer
        return self

    def reset(self) -> None:
        """Forget the script, the answering function and every recorded request."""
        with self._lock:
            self._script.clear()
            self._answer_by = None
            self.requests.clear()
            self.headers.clear()
            self.paths.clear()
            self.targets.clear()

    @property
    def remaining(self) -> int:
        """How many scripted answers have not been served yet."""
        with self._lock:
            return len(self._script)

    def _take(self, target: str, headers: dict[str, str], body: dict[str, Any]) -> Answer:
        with self._lock:
            self.targets.append(target)
            self.paths.append(target.split("?", 1)[0])
            self.headers.append(headers)
            self.requests.append(body)
            if self._answer_by is not None:
                answer = self._answer_by(body)
                return tool_calls(answer) if isinstance(answer, ToolCall) else answer
            if self._script:
                return self._script.popleft()
            served = len(self.requests) - 1
        message = f"fake LLM: script exhausted (request {served + 1} after {served} scripted answers)"
        return Error(500, message)

    def _completion(self, answer: Reply, model: str) -> dict[str, Any]:
        calls = [
            {
                "id": call.id or f"call_{next(self._ids)}",
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": call.arguments
                    if isinstance(call.arguments, str)
                    else json.dumps(call.arguments),
                },
            }
            for call in answer.tool_calls
        ]
        message: dict[str, Any] = {"role": "assistant", "content": answer.content}
        if calls:
            message["tool_calls"] = calls
        finish = answer.finish_reason or ("tool_calls" if calls else "stop")
        return {
            "id": f"chatcmpl-fake-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": answer.prompt_tokens,
                "completion_tokens": answer.completion_tokens,
                "total_tokens": answer.prompt_tokens + answer.completion_tokens,
            },
        }

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                path = self.path.split("?", 1)[0]
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if path in EMBEDDING_PATHS:
                    with fake._lock:
                        fake.embedding_requests.append(json.loads(raw))
                    self._send(200, _embeddings(json.loads(raw)))
                    return
                dialect = provider_dialects.dialect_of(path)
                if path not in CHAT_PATHS and dialect is None:
                    self._send(404, _error_body(f"fake LLM: no route {path}", 404))
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._send(400, _error_body("fake LLM: the body is not JSON", 400))
                    return
                answer = fake._take(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                if answer.delay:
                    fake._stopping.wait(answer.delay)
                try:
                    if isinstance(answer, Error):
                        extra = dict(answer.headers)
                        if answer.retry_after is not None:
                            extra["Retry-After"] = f"{answer.retry_after:g}"
                        self._send(answer.status, _error_body(answer.message, answer.status), extra)
                    elif dialect in provider_dialects.RENDERERS:
                        model = str(body.get("model") or provider_dialects.deployment_of(path) or "")
                        render = provider_dialects.RENDERERS[dialect]
                        self._send(200, render(answer, model, lambda: next(fake._ids)))
                    else:
                        self._send(200, fake._completion(answer, str(body.get("model", ""))))
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client gave up (a timeout test); nobody is left to answer

            def do_GET(self) -> None:
                self._send(404, _error_body(f"fake LLM: no route {self.path}", 404))

        return Handler


def fake_embedding(text: str) -> list[float]:
    """A deterministic unit vector: hashed character trigrams of the lower-cased words, so texts that
    share words (or parts of words, `color` and `colour`) lie close together."""
    vector = [0.0] * EMBEDDING_DIMENSIONS
    for word in text.lower().split():
        padded = f" {word.strip('.,;:!?')} "
        for i in range(len(padded) - 2):
            digest = hashlib.blake2b(padded[i : i + 3].encode(), digest_size=4).digest()
            vector[int.from_bytes(digest, "big") % EMBEDDING_DIMENSIONS] += 1.0
    norm = math.sqrt(sum(value * value for value in vector)) or 1.0
    return [value / norm for value in vector]


def _embeddings(body: dict[str, Any]) -> dict[str, Any]:
    texts = body.get("input")
    texts = [texts] if isinstance(texts, str) else list(texts or [])
    return {
        "object": "list",
        "model": str(body.get("model", "")),
        "data": [
            {"object": "embedding", "index": index, "embedding": fake_embedding(str(text))}
            for index, text in enumerate(texts)
        ],
        "usage": {
            "prompt_tokens": sum(len(str(text).split()) for text in texts),
            "total_tokens": sum(len(str(text).split()) for text in texts),
        },
    }


def _error_body(message: str, status: int) -> dict[str, Any]:
    kind = {429: "rate_limit_error", 400: "invalid_request_error", 401: "authentication_error"}
    return {"error": {"message": message, "type": kind.get(status, "server_error"), "code": str(status)}}
