"""One rendering for every error: `{"error": {"code", "message", "details": [{"path", "message"}]}}`."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from redis.exceptions import ConnectionError as RedisConnectionError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from app.config import ConfigurationError
from app.definitions.pointers import join, locate
from app.errors import AppError, ErrorDetail
from app.persistence.types import InterfaceError, OperationalError

logger = logging.getLogger("app.api")

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "payload_too_large",
    415: "unsupported_media_type",
}


def _render(
    status: int, code: str, message: str, details: list[dict[str, Any]], headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(
        status_code=status,
        content={"error": {"code": code, "message": message, "details": details}},
        headers=headers,
    )


async def _app_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, AppError)
    return JSONResponse(status_code=exc.status_code, content=exc.as_body(), headers=exc.headers or None)


def _request_error_path(loc: tuple[Any, ...], body: Any) -> str:
    """Body errors point into the body; query, path and header errors into a pseudo-document."""
    if not loc:
        return ""
    where, rest = loc[0], tuple(loc[1:])
    if where == "body":
        return locate(rest, body)
    return join(str(where), *[str(part) for part in rest])


async def _request_validation(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    body = exc.body
    details = [
        ErrorDetail(
            path=_request_error_path(tuple(error.get("loc", ())), body),
            message=str(error.get("msg", "invalid")).removeprefix("Value error, "),
            code=str(error.get("type")),
        ).as_dict()
        for error in exc.errors()
    ]
    return _render(422, "validation_failed", "The request failed validation.", details)


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def _allowed_methods(request: Request) -> str:
    """Every method some route serves at this path (the router's own 405 names only the first route's
    methods): each method is tried against the routes as the router itself would match it."""
    allowed = []
    for method in _METHODS:
        probe = {**request.scope, "method": method}
        if any(route.matches(probe)[0] == Match.FULL for route in request.app.routes):
            allowed.append(method)
    return ", ".join(allowed)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    message = exc.detail if isinstance(exc.detail, str) else "HTTP error."
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        headers["Allow"] = _allowed_methods(request)
    return _render(exc.status_code, code, message, [], headers or None)


async def _backend_unavailable(request: Request, exc: Exception) -> JSONResponse:
    logger.error("backing service unreachable on %s %s: %r", request.method, request.url.path, exc)
    return _render(
        503,
        "service_unavailable",
        "A backing service (database or broker) is unreachable; try again shortly.",
        [],
        {"Retry-After": "5"},
    )


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    if isinstance(exc, ConfigurationError):
        logger.error("configuration error on %s %s: %s", request.method, request.url.path, exc)
    else:
        logger.exception("unhandled error on %s %s", request.method, request.url.path)
    return _render(500, "internal_error", "Internal error; it has been logged.", [])


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers; no stack trace ever reaches a client."""
    app.add_exception_handler(AppError, _app_error)
    app.add_exception_handler(RequestValidationError, _request_validation)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    # Lost connections surface as OSError from the drivers, or as SQLAlchemy's wrappers of them.
    for unavailable in (OSError, OperationalError, InterfaceError, RedisConnectionError):
        app.add_exception_handler(unavailable, _backend_unavailable)
    app.add_exception_handler(Exception, _unexpected)
