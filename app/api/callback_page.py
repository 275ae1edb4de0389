"""The MCP OAuth callback as a person sees it. A callback that can go on is sent to the web UI (which
completes the flow as the signed-in user); one that cannot (no state, values too long) answers a browser
that asks for text/html with a small page saying why, with a link back to the Connections page, while
API clients keep the JSON errors.

The page is static markup with escaped text: no script (the UI's Content-Security-Policy applies), no
token, code or state echoed back.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from html import escape
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute

from app.errors import AppError

Handler = Callable[[Request], Coroutine[Any, Any, Response]]


def _quality(part: str) -> float:
    for parameter in part.split(";")[1:]:
        key, _, value = parameter.strip().partition("=")
        if key.strip() == "q":
            try:
                return float(value)
            except ValueError:
                return 0.0
    return 1.0


def prefers_html(accept: str | None) -> bool:
    """True when the Accept header names text/html and ranks it at least as high as JSON: browsers do,
    API clients (`*/*`, `application/json`) do not."""
    ranks: dict[str, float] = {}
    for part in (accept or "").split(","):
        media = part.split(";", 1)[0].strip().lower()
        if media:
            ranks[media] = max(ranks.get(media, 0.0), _quality(part))
    html = ranks.get("text/html", 0.0)
    return html > 0 and html >= ranks.get("application/json", 0.0)


def page(title: str, message: str, status_code: int) -> HTMLResponse:
    """A minimal page: a heading, one sentence, and the way back to the Connections page."""
    body = (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} · Automations</title></head>"
        '<body><main style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto">'
        f"<h1>{escape(title)}</h1><p>{escape(message)}</p>"
        '<p><a href="/connections">Back to Connections</a></p>'
        "</main></body></html>\n"
    )
    return HTMLResponse(body, status_code=status_code, headers={"Cache-Control": "no-store"})


class CallbackPageRoute(APIRoute):
    """Answers the route's own answer, or its error as a page when a browser asks for HTML. Errors
    have already rolled the request's transaction back when they reach this wrapper."""

    def get_route_handler(self) -> Handler:
        handler = super().get_route_handler()

        async def answer(request: Request) -> Response:
            if not prefers_html(request.headers.get("accept")):
                return await handler(request)
            try:
                return await handler(request)
            except AppError as exc:
                return page("Authorization failed", exc.message, exc.status_code)
            except RequestValidationError:
                return page("Authorization failed", "The link carried values that are not valid.", 422)

        return answer
