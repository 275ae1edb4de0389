"""The web UI's static files at `/`, and the security headers every answer carries.

The UI is a single-page app built at install time into `app/ui/` (see `ui/` and docs/ui.md). Its pages
have their own URLs (`/automations/…`, `/runs/…`), so a GET that matches no API route and names no file
answers `index.html` and the app routes in the browser. The UI is served only when nothing else
matched (Starlette's router `default`), so it never shadows an API route, a 405 or the API's own 404s.

Headers: the UI runs under a strict Content-Security-Policy (scripts only from this origin, no inline
script, no eval, no framing, API calls only to this origin). The interactive docs at `/docs` load their
own inline bootstrap, so they get every header but that policy.
"""

from __future__ import annotations

from pathlib import Path

from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

UI_DIR = Path(__file__).resolve().parent.parent / "ui"
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        # The generated forms set element styles (show/hide, widths); no script can come from a style.
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
_DOCS_PREFIXES = ("/docs", "/redoc")
_HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
}
# Built files carry a content hash in their names (esbuild's [hash]): they never change, so cache long.
_IMMUTABLE = "public, max-age=31536000, immutable"


class SecurityHeaders:
    """ASGI middleware adding the security headers (and the UI's CSP) to every HTTP answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        strict = not str(scope.get("path", "")).startswith(_DOCS_PREFIXES)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in _HEADERS.items():
                    headers.setdefault(name, value)
                if strict:
                    headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
            await send(message)

        await self.app(scope, receive, with_headers)


def _resolve(root: Path, path: str) -> Path | None:
    """The built file `path` names inside `root`, or None (never a file outside it)."""
    relative = path.lstrip("/")
    if not relative:
        return None
    candidate = (root / relative).resolve()
    if not candidate.is_relative_to(root.resolve()) or not candidate.is_file():
        return None
    return candidate


# Service paths, never page URLs: an operator probing `/metrics` with metrics off gets a 404, not the app.
_SERVICE_PATHS = ("/api/", "/metrics", "/healthz", "/readyz", "/artifacts/")


def ui_fallback(root: Path = UI_DIR) -> ASGIApp:
    """The router's `default`: a built file, the app shell for a page URL, or the API's 404."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", "/"))
        if (
            scope["type"] != "http"
            or scope.get("method") not in ("GET", "HEAD")
            or path.startswith(_SERVICE_PATHS)
        ):
            raise HTTPException(status_code=404, detail="Not Found")
        response: Response
        found = _resolve(root, path)
        index = root / "index.html"
        if found is not None:
            immutable = found.parent.name == "assets"
            response = FileResponse(found, headers={"Cache-Control": _IMMUTABLE if immutable else "no-cache"})
        elif "." in path.rsplit("/", 1)[-1] or not index.is_file():
            # A missing asset, or no UI built (`make install` builds it): the same JSON 404 as the API.
            raise HTTPException(status_code=404, detail="Not Found")
        else:
            response = FileResponse(index, headers={"Cache-Control": "no-cache"})
        await response(scope, receive, send)

    return app
