"""The webhook fire's plain request, served one layer below FastAPI's router.

`POST /api/v1/automations/{id}/fire` with a canonical UUID and no query string is the request external
systems send thousands of times; FastAPI would find it by walking the included routers (each request
re-reads every router's route list) and solve its dependencies one by one, costing a fire more CPU
than its own database lookup. This route matches that one shape with a regular expression at the head
of the application's routes and calls the same endpoint function (`app.api.routes.webhooks.fire`) with
the same arguments FastAPI would have solved: the same body check, the same bearer parsing, the
defaults of the absent query parameters. Errors are raised as they are there and reach the same
handlers, so every answer is the same.

Anything else (another method, a query string, a UUID written another way) does not match and takes
the FastAPI route, which also documents the operation in the OpenAPI document.
"""

from __future__ import annotations

import re
import uuid

from starlette._utils import get_route_path
from starlette.requests import Request
from starlette.routing import BaseRoute, Match
from starlette.types import Receive, Scope, Send

from app.api.body import read_json_body
from app.api.deps import get_fire_setup, get_settings
from app.api.routes import webhooks

PATH_FORMAT = "/api/v1/automations/{automation_id}/fire"
_PATH = re.compile(
    r"/api/v1/automations/"
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})/fire"
)


class FireRoute(BaseRoute):
    """Matches only a plain fire (POST, canonical UUID, no query string); never in the OpenAPI document."""

    path_format = PATH_FORMAT
    include_in_schema = False

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http" or scope.get("method") != "POST" or scope.get("query_string"):
            return Match.NONE, {}
        found = _PATH.fullmatch(get_route_path(scope))
        if found is None:
            return Match.NONE, {}
        path_params = {**scope.get("path_params", {}), "automation_id": found[1]}
        return Match.FULL, {"path_params": path_params, "endpoint": webhooks.fire}

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive, send)
        # What `JsonBodyRoute` checks before FastAPI solves anything.
        settings = get_settings(request)
        await read_json_body(request, max_bytes=settings.max_body_bytes, max_depth=settings.max_json_depth)
        response = await webhooks.fire(
            uuid.UUID(scope["path_params"]["automation_id"]),
            request,
            await get_fire_setup(request),
            await webhooks.trigger_bearer(request),
            request.headers.get("idempotency-key"),
        )
        await response(scope, receive, send)
