"""The MCP OAuth callback as a person sees it: a browser that lands there (it asks for text/html) gets a
small page saying how the authorization went, with a link back to the Connections page; API clients keep
the JSON answer and the JSON errors.

The page is static markup with escaped text: no script (the UI's Content-Security-Policy applies), no
token, code or state echoed back.
"""

from __future__ import annotations

import json
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


def _success_page(response: Response) -> Response:
    if response.status_code != 200:
        return response
    answer = json.loads(bytes(response.body))
    if answer.get("authorized"):
        return page(
            "Authorized",
            "The MCP server accepted the authorization; its tools are being listed now.",
            200,
        )
    return page(
        "Not authorized",
        "The authorization was not granted, so the connection still needs authorizing. "
        "You can start it again from the Connections page.",
        200,
    )


class CallbackPageRoute(APIRoute):
    """Answers the route's JSON, or the same outcome as a page when a browser asks for HTML. Errors
    have already rolled the request's transaction back when they reach this wrapper."""

    def get_route_handler(self) -> Handler:
        handler = super().get_route_handler()

        async def answer(request: Request) -> Response:
            if not prefers_html(request.headers.get("accept")):
                return await handler(request)
            try:
                return _success_page(await handler(request))
            except AppError as exc:
                return page("Authorization failed", exc.message, exc.status_code)
            except RequestValidationError:
                return page("Authorization failed", "The link carried values that are not valid.", 422)

        return answer
