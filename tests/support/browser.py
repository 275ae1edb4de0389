"""Browser tests' helpers: the API as a child process, Debian's Chromium driven by Playwright's sync API,
screenshots as test output, and axe-core run inside the page.

Playwright's sync API cannot run inside a running event loop, so the service under test is a real
`automations api` process (with the real worker and the loopback LLM), never an in-process app.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from tests.support.factories import TEST_PASSWORD_COST
from tests.support.processes import ROOT, ServiceProcess

# Preferred first: the headless shell took about half the CPU of the full browser run headless (the
# browser tests, alternating: 162-180 against 294-323 CPU-seconds, 300 processes against 554).
HEADLESS_BROWSERS = ("chromium-headless-shell", "chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = ROOT / "tests" / "output" / "screenshots"
AXE = ROOT / "ui" / "node_modules" / "axe-core" / "axe.min.js"
UI_INDEX = ROOT / "app" / "ui" / "index.html"
T = TypeVar("T")


def chromium_path() -> str:
    """The Chromium the browser tests drive: `CHROMIUM_BINARY` when set, else Debian's headless shell
    (Chromium's lighter build for automation, what Playwright itself runs headless), else Debian's
    Chromium. Missing both fails in CI (never a silent skip) and skips, saying why, elsewhere."""
    chosen = os.environ.get("CHROMIUM_BINARY")
    if chosen:
        return chosen
    for name in HEADLESS_BROWSERS:
        found = shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else None)
        if found:
            return found
    message = "chromium is not installed (make test installs it with apt-get when it can)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def _ui_sources_changed() -> bool:
    """Whether a UI source is newer than the build: the browser tests must drive the code under test."""
    built = UI_INDEX.stat().st_mtime
    ui = ROOT / "ui"
    sources = [*(ui / "src").rglob("*"), ui / "build.mjs", ui / "package-lock.json"]
    return any(path.is_file() and path.stat().st_mtime > built for path in sources)


def ensure_ui_built() -> None:
    """The built UI (make install builds it); built here when missing or older than its sources, so a
    bare pytest run after an edit tests the edit."""
    if not UI_INDEX.is_file() or not AXE.is_file() or _ui_sources_changed():
        subprocess.run([sys.executable, str(ROOT / "ui" / "build.py")], check=True, cwd=ROOT)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_api(
    env: dict[str, str], log_dir: Path, port: int | None = None, name: str = "ui-api"
) -> tuple[ServiceProcess, str]:
    """`automations api` on a loopback port (a free one unless given), returned once it answers /healthz."""
    port = port or free_port()
    process = ServiceProcess.cli(name, ["api", "--host", "127.0.0.1", "--port", str(port)], env, log_dir)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if not process.alive():
            raise RuntimeError(f"the API exited early:\n{process.log_tail()}")
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return process, base
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    process.stop()
    raise RuntimeError("the API did not start in 60 s")


def cli(env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`automations <args>` as an operator runs it."""
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        env=env,
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def create_admin(env: dict[str, str], email: str, password: str, base: str) -> dict[str, Any]:
    """A space and its owner made as `automations create-admin` makes them, a password set as
    `automations set-password` sets it, and the owner's sign-in through the API at `base`.

    The commands' own code runs here rather than in two more interpreters per test (each costs
    seconds of start-up); tests/ui/test_cli_passwords.py runs the commands themselves. The operator's
    reset revokes the bootstrap token, so the answer's `token` is a sign-in through the API."""
    result = _off_the_loop(_create_admin_with_password(env["DATABASE_URL"], email, password))
    bootstrap = {"Authorization": f"Bearer {result['token']}"}
    assert httpx.get(f"{base}/api/v1/me", headers=bootstrap).status_code == 401
    signed = httpx.post(f"{base}/api/v1/auth/sessions", json={"email": email, "password": password})
    assert signed.status_code == 201, signed.text
    result["token"] = signed.json()["token"]
    return result


async def _create_admin_with_password(database_url: str, email: str, password: str) -> dict[str, Any]:
    from app.cli_common import refuse_jobs
    from app.persistence.db import create_engine, create_sessionmaker
    from app.persistence.transaction import transaction
    from app.services.identity.signin import sign_in_service
    from app.services.identity.spaces import space_service

    engine = create_engine(database_url, pool_size=1)
    try:
        sessions = create_sessionmaker(engine)
        async with transaction(sessions, refuse_jobs) as session:
            made = await space_service.bootstrap(session, space_name="Browser tests", email=email)
        async with transaction(sessions, refuse_jobs) as session:
            await sign_in_service.set_password_by_email(session, email, password, cost=TEST_PASSWORD_COST)
    finally:
        await engine.dispose()
    return {"space_id": str(made.space.id), "user_id": str(made.user.id), "token": made.token}


def _off_the_loop(work: Coroutine[Any, Any, T]) -> T:
    """Run `work` to its end in a thread of its own: while Playwright's sync API is open, this thread
    looks like it runs an event loop, and asyncio.run refuses to start here."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, work).result()


def shot(page: Any, name: str) -> Path:
    """A full-page screenshot under tests/output/screenshots (gitignored test output)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{re.sub(r'[^A-Za-z0-9_.-]', '-', name)}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """Serious and critical axe-core violations on the page as it is now."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # Evaluated through the DevTools protocol: the page's CSP (no inline script) stays in force.
        page.evaluate(AXE.read_text() + "\n;true")
    result: dict[str, Any] = page.evaluate(
        "async () => await window.axe.run(document, {resultTypes: ['violations']})"
    )
    return [
        {
            "id": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "nodes": [n["target"] for n in v["nodes"]][:5],
        }
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
