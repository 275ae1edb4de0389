"""The API process keeps clients it rarely needs out of memory: they load on first use, not at start.

Each API process (one per core) pays for every module it imports, so a module-level import of an HTTP
client or an SDK anywhere under the routes quietly grows every process. This starts a fresh interpreter
as `automations api` would, serves requests through the app, and lists what got loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.processes import ROOT

# Loaded only by the calls that use them: outbound deliveries, LLM calls, MCP sessions, template checks.
LAZY_MODULES = (
    "httpx",
    "httpcore",
    "httpx2",
    "h2",
    "jinja2",
    "argon2",
    "litellm",
    "openai",
    "mcp",
    "rich",
    "pygments",
)

PROBE = """
import asyncio, json, sys

LAZY = {lazy!r}


def loaded():
    return sorted(name for name in LAZY if name in sys.modules)


async def main():
    from app.main import create_app

    app = create_app()
    startup = asyncio.Queue()
    await startup.put({{"type": "lifespan.startup"}})
    started = asyncio.Event()

    async def lifespan_send(message):
        if message["type"] == "lifespan.startup.complete":
            started.set()
        elif message["type"] == "lifespan.startup.failed":
            raise SystemExit(message.get("message"))

    lifespan_scope = {{"type": "lifespan", "asgi": {{"version": "3.0"}}}}
    lifespan = asyncio.create_task(app(lifespan_scope, startup.get, lifespan_send))
    await asyncio.wait_for(started.wait(), 60)
    statuses = {{}}
    for path in ("/healthz", "/readyz", "/api/v1/me"):
        statuses[path] = await _get(app, path)
    await startup.put({{"type": "lifespan.shutdown"}})
    await lifespan
    after_requests = loaded()
    # The probe can see a loaded client: the egress client pulls httpx in.
    from app.security.egress import egress_client  # noqa: F401

    print(json.dumps({{"statuses": statuses, "after_requests": after_requests, "after_use": loaded()}}))


async def _get(app, path):
    answer = {{}}

    async def receive():
        return {{"type": "http.request", "body": b"", "more_body": False}}

    async def send(message):
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]

    scope = {{
        "type": "http", "asgi": {{"version": "3.0"}}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 50000), "server": ("testserver", 80),
    }}
    await app(scope, receive, send)
    return answer.get("status")


asyncio.run(main())
"""


def test_the_api_serves_requests_without_loading_rarely_used_clients(service_env: dict[str, str]) -> None:
    probe = PROBE.format(lazy=LAZY_MODULES)
    answer = subprocess.run(
        [sys.executable, "-c", probe], env=service_env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert answer.returncode == 0, answer.stderr[-3000:]
    found = json.loads(answer.stdout.strip().splitlines()[-1])
    # The app really served: alive, ready on the real database and Redis, and an unauthenticated call refused.
    assert found["statuses"] == {"/healthz": 200, "/readyz": 200, "/api/v1/me": 401}
    assert found["after_requests"] == [], (
        f"imported at start or on a plain request: {found['after_requests']}"
    )
    assert "httpx" in found["after_use"]
